-- Glicko-2 ratings, one row per player and variant (see src/rating.rs).

CREATE TABLE ratings (
    player_id TEXT NOT NULL REFERENCES players (id),
    variant TEXT NOT NULL,
    rating DOUBLE PRECISION NOT NULL,
    deviation DOUBLE PRECISION NOT NULL,
    volatility DOUBLE PRECISION NOT NULL,
    games BIGINT NOT NULL,
    PRIMARY KEY (player_id, variant)
);
