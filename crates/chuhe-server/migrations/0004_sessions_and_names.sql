-- Sessions expire: the last time each was used (the expiry slides with use; a periodic cleanup
-- removes expired sessions and the guests left without one). Existing sessions count as used
-- when they were created.
ALTER TABLE sessions ADD COLUMN last_used_ms BIGINT NOT NULL DEFAULT 0;
UPDATE sessions SET last_used_ms = created_ms;
CREATE INDEX sessions_last_used ON sessions (last_used_ms);

-- The name's confusable skeleton (Unicode TS #39, lower case, letters and digits only; see
-- src/names.rs): an account holder's name is reserved against look-alikes by it. Filled for
-- existing players at start-up, where the unique index over accounts is made too (the first
-- account of a skeleton keeps it; a later look-alike account keeps its name, without a key).
ALTER TABLE players ADD COLUMN skeleton TEXT;

-- The server's own values: `alive_ms`, when the running server last said it was alive
-- (every 5 s; 0 after a clean stop), so that after a kill -9 the thinking time between a
-- table's last write and the crash is charged to the seat to move.
CREATE TABLE server_state (
    name TEXT PRIMARY KEY,
    value BIGINT NOT NULL
);
