-- A cluster's identity (docs/cluster.md): `nats_prefix`, the NATS subject prefix its nodes
-- use, and `cluster_id`, a random id that the first node also leaves in NATS (bucket
-- `<prefix>-cluster`), so that a node started with another prefix, or against a NATS that
-- carries another cluster under the same prefix, is refused instead of splitting the site.
CREATE TABLE cluster_settings (
    name TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
