-- Who played each finished game: one row per person seated when it ended, so that the list of
-- a player's finished games (`GET /api/games?player=`) reads an index instead of scanning the
-- summaries. Written in the transaction of the game's finished row; the games finished before
-- this migration get theirs at start-up from their summaries.

CREATE TABLE game_players (
    player_id TEXT NOT NULL,
    table_id TEXT NOT NULL REFERENCES finished_games (table_id),
    -- the finished game's `ended_ms` and variant word, copied to order and filter in the index
    ended_ms BIGINT NOT NULL,
    variant TEXT NOT NULL,
    PRIMARY KEY (player_id, table_id)
);

CREATE INDEX game_players_by_player ON game_players (player_id, ended_ms, table_id);
CREATE INDEX game_players_by_variant ON game_players (player_id, variant, ended_ms, table_id);
CREATE INDEX game_players_table ON game_players (table_id);
