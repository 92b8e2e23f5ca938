-- Finished games, one row per table whose game has ended, written in the transaction of its
-- `ended` event (tables that ended before this migration are added at start-up from their
-- events). The lobby's list of finished games reads them, newest first.

CREATE TABLE finished_games (
    table_id TEXT PRIMARY KEY REFERENCES game_tables (id),
    -- when the game ended, milliseconds since the Unix epoch
    ended_ms BIGINT NOT NULL,
    -- the end-reason word; aborted games are kept but not listed
    reason TEXT NOT NULL,
    -- protocol FinishedGame as JSON
    summary TEXT NOT NULL
);

CREATE INDEX finished_games_ended ON finished_games (ended_ms, table_id);
