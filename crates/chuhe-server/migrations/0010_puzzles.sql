-- Puzzles (docs/puzzles.md): the verified puzzles of data/puzzles.tsv, loaded at start-up (the
-- file is embedded in the binary: src/store/puzzles.rs), each with a Glicko-2 rating that the
-- players' results move; each player's puzzle rating (accounts and guests alike); and each
-- player's first result on each puzzle. Times are milliseconds since the Unix epoch.
CREATE TABLE puzzles (
    -- the source game's id and the ply of the puzzle's position, as `ccpd-000020-50`
    id TEXT PRIMARY KEY,
    -- the position before the opponent's last move (as the file has it)
    before_fen TEXT NOT NULL,
    -- the opponent's last move, ICCS
    last_move TEXT NOT NULL,
    -- the position after it, where the player makes the solution's first move
    fen TEXT NOT NULL,
    -- the solution's moves, ICCS, separated by spaces (the player's moves and the replies)
    solution TEXT NOT NULL,
    -- the themes' keys, separated by spaces (mateIn2 fork ...)
    themes TEXT NOT NULL,
    rating DOUBLE PRECISION NOT NULL,
    deviation DOUBLE PRECISION NOT NULL,
    volatility DOUBLE PRECISION NOT NULL,
    -- how many players have a result on it
    plays BIGINT NOT NULL,
    -- the source game (data/games.tsv) and the plies played in it to reach `fen`
    game_id TEXT NOT NULL,
    ply BIGINT NOT NULL
);

CREATE INDEX puzzles_rating ON puzzles (rating);

-- A player's puzzle rating (one per player; the default 1500/350/0.06 until the first result).
CREATE TABLE puzzle_ratings (
    player_id TEXT PRIMARY KEY REFERENCES players (id),
    rating DOUBLE PRECISION NOT NULL,
    deviation DOUBLE PRECISION NOT NULL,
    volatility DOUBLE PRECISION NOT NULL,
    -- rated results so far
    plays BIGINT NOT NULL,
    updated_ms BIGINT NOT NULL
);

-- A player's result on a puzzle: only the first one is kept and rated (a puzzle tried again
-- changes no rating), with both ratings before and after it.
CREATE TABLE puzzle_results (
    player_id TEXT NOT NULL REFERENCES players (id),
    puzzle_id TEXT NOT NULL REFERENCES puzzles (id),
    -- 1 solved, 0 failed
    win BIGINT NOT NULL,
    rating_before DOUBLE PRECISION NOT NULL,
    rating_after DOUBLE PRECISION NOT NULL,
    puzzle_rating_before DOUBLE PRECISION NOT NULL,
    puzzle_rating_after DOUBLE PRECISION NOT NULL,
    created_ms BIGINT NOT NULL,
    PRIMARY KEY (player_id, puzzle_id)
);

CREATE INDEX puzzle_results_recent ON puzzle_results (player_id, created_ms);
