-- The schema of the last release before migrations (021c809). Written as SQLite runs it;
-- PostgreSQL runs it translated (pbem/store/postgres.py, ``ddl``). A database made by that release
-- (by ``init-db`` or a server start) already has all of it: ``pbem/store/db.py`` marks it applied.

CREATE TABLE games (
    id TEXT PRIMARY KEY,      -- public game id (not a secret: it grants nothing)
    game TEXT NOT NULL,       -- engine game id
    players INTEGER NOT NULL,
    options TEXT NOT NULL,    -- JSON of the resolved options
    seed TEXT NOT NULL,       -- secret: chance events derive from it
    created_at TEXT NOT NULL,
    -- A summary of the log, rewritten with every event for listings and the scheduler;
    -- the log stays the source of truth.
    status TEXT,              -- "waiting" (for players), "active" or "finished"
    ply INTEGER,
    to_move TEXT,             -- JSON list of seats
    outcome TEXT,             -- JSON or null
    updated_at TEXT,
    clock TEXT,               -- JSON time control (pbem/clocks.py); null: none
    public INTEGER NOT NULL DEFAULT 0  -- 1: its open seats are listed in the lobby
);

CREATE TABLE seats (
    game_id TEXT REFERENCES games(id),
    seat INTEGER,
    name TEXT,                -- both null while the seat is open; email null: none given
    email TEXT,
    notify TEXT NOT NULL DEFAULT 'each',  -- emails: each, digest or none (pbem/mail/notify.py)
    webhook TEXT,             -- the seat's webhook URL (pbem/mail/webhooks.py)
    bot TEXT,                 -- a computer player's level (pbem/computer.py)
    stand_in INTEGER NOT NULL DEFAULT 0,  -- 1: the computer plays while its player is away
    PRIMARY KEY (game_id, seat)
);

-- A game's history: append-only (the triggers of 0001_initial.<engine>.sql).
CREATE TABLE events (
    game_id TEXT REFERENCES games(id),
    seq INTEGER,              -- 1, 2, 3, ... per game; the primary key makes it unique
    seat INTEGER,             -- who acted (null for the server itself, e.g. a timeout)
    -- move, resign, draw_offer, draw_accept, draw_decline, vacation (move: its days),
    -- timeout (the server's; seat: who ran out), chat (text: the message), rematch (a seat
    -- asks for one), join (seat: the open seat taken), withdraw (before the start)
    kind TEXT NOT NULL,
    move TEXT,                -- the move in notation, for kind = move
    created_at TEXT NOT NULL,
    -- a chat message's text; for the rematch ask that completed a rematch, the new game's id
    text TEXT,
    PRIMARY KEY (game_id, seq)
);

CREATE TABLE links (
    token_hash TEXT PRIMARY KEY,  -- sha256 of the secret; the secret itself is never stored
    game_id TEXT REFERENCES games(id),
    seat INTEGER,             -- null: a spectator's link
    created_at TEXT
);

CREATE TABLE invitations (    -- the join link of each open seat, like links
    token_hash TEXT PRIMARY KEY,
    game_id TEXT REFERENCES games(id),
    seat INTEGER,
    created_at TEXT
);

CREATE TABLE home_links (
    token_hash TEXT PRIMARY KEY,
    email TEXT,
    created_at TEXT
);

CREATE TABLE clock_warnings (  -- one "your time runs out" email per seat and turn
    game_id TEXT REFERENCES games(id),
    seat INTEGER,
    turn_seq INTEGER,         -- the event that began the turn (0: the game's start)
    deadline TEXT,
    created_at TEXT,
    PRIMARY KEY (game_id, seat, turn_seq)
);

CREATE TABLE outbox (
    id INTEGER PRIMARY KEY,
    message_id TEXT,          -- fixed when queued, so a resend after a crash keeps it
    game_id TEXT,
    recipient TEXT,
    subject TEXT,
    body TEXT,
    headers TEXT,             -- JSON of extra headers
    created_at TEXT,
    status TEXT,              -- pending, sent, failed
    attempts INTEGER,
    next_attempt_at TEXT,
    sent_at TEXT,
    last_error TEXT,
    -- start, turn, reminder, digest, end, draw_offer, home, ... (other: unclassified)
    kind TEXT NOT NULL DEFAULT 'other',
    seat INTEGER,             -- the seat an email is about
    -- what must never be sent twice: the reminder of one turn, one address's daily digest
    unique_key TEXT,
    channel TEXT NOT NULL DEFAULT 'email'  -- email, or webhook (pbem/mail/webhooks.py)
);

-- addresses are compared without case (as people type them), in SQL both engines know
CREATE INDEX seats_email_lower ON seats (lower(email));
CREATE INDEX idx_links_game_id_seat ON links (game_id, seat);
CREATE INDEX idx_outbox_status_next_attempt_at ON outbox (status, next_attempt_at);
CREATE UNIQUE INDEX outbox_unique_key ON outbox (unique_key) WHERE unique_key IS NOT NULL;
CREATE INDEX idx_outbox_game_id_seat_kind ON outbox (game_id, seat, kind);

CREATE TABLE conditional_lines (  -- a seat's own conditional moves (pbem/conditional.py)
    game_id TEXT,
    seat INTEGER,
    lines TEXT NOT NULL,      -- JSON list of lines, each a list of moves (theirs, mine, ...)
    updated_at TEXT,
    PRIMARY KEY (game_id, seat)
);

CREATE INDEX idx_games_public_status ON games (public, status);  -- the lobby

CREATE TABLE email_links (    -- the secret of every email's settings and unsubscribe links
    token_hash TEXT PRIMARY KEY,  -- sha256, like links
    purpose TEXT,             -- seat (one seat's emails), digest or home (an address's)
    game_id TEXT,             -- purpose seat
    seat INTEGER,
    email TEXT,               -- purpose digest or home
    created_at TEXT
);

CREATE TABLE home_optouts (   -- addresses that want no more "Your games" emails
    email TEXT PRIMARY KEY,   -- lower case
    created_at TEXT
);

CREATE TABLE digest_days (    -- the days whose digests were queued (UTC dates)
    day TEXT PRIMARY KEY,
    created_at TEXT
);

CREATE TABLE notes (          -- each player's private notes on a game: never shown to anyone else
    game_id TEXT REFERENCES games(id),
    seat INTEGER,
    text TEXT,
    updated_at TEXT,
    PRIMARY KEY (game_id, seat)
);

CREATE TABLE due (            -- what the scheduler's jobs look at, and from when (pbem/due.py)
    game_id TEXT,
    seat INTEGER,
    kind TEXT,                -- timeout, warning, reminder, turn, waiting or computer
    at TEXT NOT NULL,         -- when it falls due (a reminder, a turn: when the turn began)
    -- a reminder held back by a vacation: its end; a turn's email held back while its
    -- player was there: when they may have left
    not_before TEXT,
    PRIMARY KEY (game_id, seat, kind)
);
CREATE INDEX idx_due_kind_at ON due (kind, at);

-- the digest starts from the seats that chose it: few among many, so a partial index
CREATE INDEX seats_digest ON seats (game_id, seat) WHERE notify = 'digest';

CREATE TABLE snapshots (      -- each game's last kept position (pbem/positions.py)
    game_id TEXT PRIMARY KEY,
    ply INTEGER NOT NULL,
    engine TEXT NOT NULL,     -- the engine code that made it: another one's is not used
    state BLOB NOT NULL,      -- the position, pickled
    to_move TEXT NOT NULL     -- JSON: who was to move after each ply up to it
);
