-- Challenges between two accounts (docs/bots.md): lichess's model, kept here so that a restart
-- forgets none and any node of a cluster answers them. A challenge is `created` until it is
-- `accepted`, `declined` (with the decline reason's key), `canceled` by its challenger, or
-- `expired` (`expires_ms` passed: 20 s after it was made, or after its challenger's event stream
-- was last open, for a game with a clock; two weeks for an untimed game). Leaving `created` is
-- one UPDATE ... WHERE status = 'created', so two nodes never both accept a challenge. Times are
-- milliseconds since the Unix epoch.
CREATE TABLE challenges (
    -- 8 letters and digits
    id TEXT PRIMARY KEY,
    challenger_id TEXT NOT NULL REFERENCES players (id),
    dest_id TEXT NOT NULL REFERENCES players (id),
    -- the table it makes once accepted (the table options, JSON)
    options TEXT NOT NULL,
    -- the colour asked for: white, black or random
    color TEXT NOT NULL,
    -- the challenger's seat once accepted (0 = white = Red), drawn when it is made
    challenger_seat BIGINT NOT NULL,
    -- created, accepted, declined, canceled or expired
    status TEXT NOT NULL,
    -- the key of lichess's decline reason (generic, later, tooFast ...), once declined
    decline_reason TEXT,
    created_ms BIGINT NOT NULL,
    expires_ms BIGINT NOT NULL,
    -- when it left `created`
    answered_ms BIGINT
);

CREATE INDEX challenges_challenger ON challenges (challenger_id, status);
CREATE INDEX challenges_dest ON challenges (dest_id, status);
CREATE INDEX challenges_expiry ON challenges (status, expires_ms);
