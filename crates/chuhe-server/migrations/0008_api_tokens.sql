-- Personal API tokens (docs/bots.md): lichess's model. The token itself is shown once, when it
-- is made; only its SHA-256 (hex) is kept, as for session cookies. `scopes` is the space-separated
-- list of the token's scopes (`bot:play`, `board:play`, `challenge:read`, ...). A revoked token
-- keeps its row (its `revoked_ms` set) and is never accepted again.
CREATE TABLE api_tokens (
    -- the public id a token is listed and revoked by (never the token)
    id TEXT PRIMARY KEY,
    digest TEXT NOT NULL UNIQUE,
    player_id TEXT NOT NULL REFERENCES players (id),
    description TEXT NOT NULL,
    scopes TEXT NOT NULL,
    created_ms BIGINT NOT NULL,
    -- the last request it authorized (recorded at most once a minute), NULL before the first
    last_used_ms BIGINT,
    revoked_ms BIGINT
);

CREATE INDEX api_tokens_player ON api_tokens (player_id, created_ms);

-- Bot accounts (lichess's title BOT): 1 for a bot, 0 for anyone else. An account becomes a bot
-- only before its first game, and never stops being one.
ALTER TABLE players ADD COLUMN bot BIGINT NOT NULL DEFAULT 0;
