-- chuhe server schema, written in the SQL that SQLite and PostgreSQL share.
-- Times are milliseconds since the Unix epoch; versions count table events from 1.

CREATE TABLE players (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    -- argon2 PHC string for account holders, NULL for guests
    password_hash TEXT,
    created_ms BIGINT NOT NULL
);

CREATE UNIQUE INDEX players_account_name ON players (name) WHERE password_hash IS NOT NULL;

CREATE TABLE sessions (
    -- SHA-256 of the cookie's token, hex (the token itself is never stored)
    token TEXT PRIMARY KEY,
    player_id TEXT NOT NULL REFERENCES players (id),
    created_ms BIGINT NOT NULL
);

CREATE TABLE game_tables (
    id TEXT PRIMARY KEY,
    variant TEXT NOT NULL,
    -- TableOptions as JSON
    options TEXT NOT NULL,
    -- open | running | ended
    phase TEXT NOT NULL,
    version BIGINT NOT NULL,
    -- ClockSnapshot as JSON (remaining times at the last event or at shutdown), NULL when untimed
    clocks TEXT,
    -- hidden information that must survive a restart (banqi layout); never sent
    secret TEXT,
    created_ms BIGINT NOT NULL,
    updated_ms BIGINT NOT NULL
);

CREATE INDEX game_tables_phase ON game_tables (phase);

CREATE TABLE table_events (
    table_id TEXT NOT NULL REFERENCES game_tables (id),
    version BIGINT NOT NULL,
    -- protocol Event as JSON
    body TEXT NOT NULL,
    created_ms BIGINT NOT NULL,
    PRIMARY KEY (table_id, version)
);
