-- Tournaments (docs/tournaments.md): an arena's settings, its status and the whole state of
-- chuhe-tournament's `Arena` as JSON, written after every event (a join, a withdrawal, a
-- pairing wave, a result, the start and the end), with a version counting those writes from 1.
-- Times are milliseconds since the Unix epoch.
CREATE TABLE tournaments (
    id TEXT PRIMARY KEY,
    -- arena (the only kind served yet)
    kind TEXT NOT NULL,
    -- the variant's wire word (xiangqi, banqi)
    variant TEXT NOT NULL,
    name TEXT NOT NULL,
    -- each player's starting time, seconds, and the increment per move, seconds
    clock_limit_s BIGINT NOT NULL,
    clock_increment_s BIGINT NOT NULL,
    -- how long pairings go on, minutes
    minutes BIGINT NOT NULL,
    starts_ms BIGINT NOT NULL,
    -- 1 for rated games, 0 for casual ones
    rated BIGINT NOT NULL,
    -- 1 when players may go berserk
    berserkable BIGINT NOT NULL,
    created_by TEXT NOT NULL REFERENCES players (id),
    -- created | started | finished
    status TEXT NOT NULL,
    -- the server's state of the event (the crate's Arena and the players' names) as JSON
    state TEXT NOT NULL,
    version BIGINT NOT NULL,
    created_ms BIGINT NOT NULL,
    updated_ms BIGINT NOT NULL
);

CREATE INDEX tournaments_status ON tournaments (status, starts_ms);
CREATE INDEX tournaments_creator ON tournaments (created_by, created_ms);

-- The table of each game a tournament handed out (the crate's GameId, numbered from 1 per
-- tournament), written with the state of the wave that made it.
CREATE TABLE tournament_games (
    tournament_id TEXT NOT NULL REFERENCES tournaments (id),
    game_no BIGINT NOT NULL,
    table_id TEXT NOT NULL REFERENCES game_tables (id),
    PRIMARY KEY (tournament_id, game_no)
);

CREATE INDEX tournament_games_table ON tournament_games (table_id);
