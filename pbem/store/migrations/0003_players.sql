-- Players across games (pbem/players.py): an optional identity, a proven email address and
-- a public handle, signed in by a one-time link emailed to the address. Secret links still
-- play every game; these rows only gather a player's seats.

CREATE TABLE players (
    id INTEGER PRIMARY KEY,
    handle TEXT NOT NULL,     -- public: 3-20 of A-Z a-z 0-9 _ -, unique ignoring case
    email TEXT,               -- the proven address, lower case; null: a computer player
    -- sha256 of the player key (a secret API base, derived from the server's secret key,
    -- the id and the generation: never stored); null: none
    key_hash TEXT UNIQUE,
    -- "Sign out everywhere" counts on: a session, a key or a seat link of an older
    -- generation opens nothing
    generation INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL
);
CREATE UNIQUE INDEX players_handle ON players (lower(handle));
CREATE UNIQUE INDEX players_email ON players (email);

CREATE TABLE sign_in_links (  -- each emailed sign-in link, like links: only its hash
    token_hash TEXT PRIMARY KEY,
    email TEXT NOT NULL,      -- the address it was emailed to, lower case: proven by its use
    address TEXT NOT NULL,    -- the same normalised (invites.address_key), for the limit
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    used_at TEXT              -- null until used: a link signs in once
);
CREATE INDEX idx_sign_in_links_address_created_at ON sign_in_links (address, created_at);

-- a seat taken by a signed-in player or with a player key (its email may be anyone's)
ALTER TABLE seats ADD COLUMN player_id INTEGER;
CREATE INDEX seats_player ON seats (player_id) WHERE player_id IS NOT NULL;
-- a seat link made for a player (their dashboard, their key): revoked with the player
ALTER TABLE links ADD COLUMN player_id INTEGER;
CREATE INDEX links_player ON links (player_id) WHERE player_id IS NOT NULL;
