-- Several nodes on one database (docs/cluster.md). Each live node process has a lease row,
-- renewed every second; a table is owned by at most one node process at a time, with a fencing
-- number (`owner_epoch`) that grows with every change of owner. A node's table writes are
-- committed only while the row still names it and its epoch and its lease is unexpired.
-- Outside a cluster the owner stays NULL and nothing here is read.
ALTER TABLE game_tables ADD COLUMN owner_node TEXT;
ALTER TABLE game_tables ADD COLUMN owner_epoch BIGINT NOT NULL DEFAULT 0;
CREATE INDEX game_tables_owner ON game_tables (owner_node);

-- One row per node process (`node` is the node's name and a random suffix, new at every
-- start): its lease runs until `lease_until_ms`, the database's clock, and `renewed_ms` is
-- when it last said it was alive (after a crash, the thinking time up to then is charged).
CREATE TABLE cluster_nodes (
    node TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    started_ms BIGINT NOT NULL,
    renewed_ms BIGINT NOT NULL,
    lease_until_ms BIGINT NOT NULL
);
