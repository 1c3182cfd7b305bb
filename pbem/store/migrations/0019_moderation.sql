-- A public site (issue 40): blocks, reports, moderators' actions and their log, and what
-- those actions do to a player (pbem/blocks.py, pbem/moderation.py).

-- A player who blocks another: the blocked player takes none of the blocker's open seats
-- or challenges, and the blocker reads none of their chat.
CREATE TABLE blocks (
    player_id INTEGER NOT NULL REFERENCES players (id),   -- who blocks
    blocked_id INTEGER NOT NULL REFERENCES players (id),
    created_at TEXT NOT NULL,
    PRIMARY KEY (player_id, blocked_id)
);
CREATE INDEX blocks_blocked ON blocks (blocked_id);

-- A seat (with or without an account) that stops reading another seat's chat in its game.
CREATE TABLE seat_mutes (
    game_id TEXT NOT NULL REFERENCES games (id),
    seat INTEGER NOT NULL,
    muted_seat INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (game_id, seat, muted_seat)
);

-- What a player or a seat reported to the moderators, with the evidence as it stood then.
-- No foreign keys to players: a report outlives a deleted identity (its ids set null).
CREATE TABLE reports (
    id INTEGER PRIMARY KEY,
    reporter_id INTEGER,        -- the reporting player; null: a seat without an account
    reporter_name TEXT NOT NULL,  -- their handle, or the seat's name
    reporter_game TEXT,         -- a seat's report: its game and seat, told when handled
    reporter_seat INTEGER,
    reported_id INTEGER,        -- the reported player; null: a seat without an account
    reported_name TEXT NOT NULL,  -- their handle, or the seat's name
    game_id TEXT,               -- the game it is about, if any
    message_seq INTEGER,        -- the chat message it is about, if any (its event's seq)
    reason TEXT NOT NULL,       -- abuse, cheating, spam, other; appeal: a player's own
    text TEXT NOT NULL,
    evidence TEXT NOT NULL,     -- JSON: the game's chat and record as they stood
    status TEXT NOT NULL,       -- open, handled
    created_at TEXT NOT NULL,
    handled_at TEXT
);
CREATE INDEX reports_status ON reports (status, created_at);
CREATE INDEX reports_reported ON reports (reported_id);

-- Every moderator's action, append-only (0019_moderation.<engine>.sql): moderators read it.
-- Names kept as text: the log stays as it was written.
CREATE TABLE moderation_log (
    id INTEGER PRIMARY KEY,
    moderator_id INTEGER NOT NULL,
    moderator TEXT NOT NULL,
    subject_id INTEGER,
    handle TEXT NOT NULL,
    action TEXT NOT NULL,       -- warn, mute, suspend, close, restore, annul, dismiss
    note TEXT NOT NULL,
    report_id INTEGER,
    game_id TEXT,               -- annul: the game
    appeal_hash TEXT UNIQUE,    -- sha256 of the secret appeal link emailed to the player
    created_at TEXT NOT NULL
);
CREATE INDEX moderation_log_subject ON moderation_log (subject_id);

-- What moderators' actions do to a player, since when (null: not so): muted, their chat
-- refused; suspended, no rated games, tournaments or public challenges; closed, sign-in
-- refused, the profile closed, off the leaderboards.
ALTER TABLE players ADD COLUMN muted_at TEXT;
ALTER TABLE players ADD COLUMN suspended_at TEXT;
ALTER TABLE players ADD COLUMN closed_at TEXT;

-- Rated games whose rating changes a moderator took back: ratings leave them out.
CREATE TABLE annulled_games (
    game_id TEXT PRIMARY KEY REFERENCES games (id),
    annulled_at TEXT NOT NULL
);
