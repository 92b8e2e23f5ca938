-- Tournaments in a cluster (docs/cluster.md, docs/tournaments.md): a tournament is owned like a
-- table, by one node process at a time (`owner_node`, a key of `cluster_nodes`), with a fencing
-- number (`owner_epoch`) that grows by one at every change of owner. The owner's saves are
-- committed only while the row still names it and its epoch and its lease runs; when its lease
-- lapses another node takes the tournament over from its stored state. Outside a cluster the
-- owner stays NULL and nothing here is read.
ALTER TABLE tournaments ADD COLUMN owner_node TEXT;
ALTER TABLE tournaments ADD COLUMN owner_epoch BIGINT NOT NULL DEFAULT 0;

-- What the other nodes ask of a tournament's owner, taken by the owner at its next tick:
-- `join` and `withdraw` (`subject`: the player, `name` their name, `rating` their rating), and
-- `ended` (`subject`: a table of the tournament whose game ended on another node).
CREATE TABLE tournament_requests (
    id TEXT PRIMARY KEY,
    tournament_id TEXT NOT NULL REFERENCES tournaments (id),
    action TEXT NOT NULL,
    subject TEXT NOT NULL,
    name TEXT NOT NULL,
    rating BIGINT NOT NULL,
    made_ms BIGINT NOT NULL
);

CREATE INDEX tournament_requests_tournament ON tournament_requests (tournament_id, made_ms);
