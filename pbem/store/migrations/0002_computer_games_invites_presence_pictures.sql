-- What came after the last release before migrations (021c809): games between computers,
-- invitations limited per address, turn emails held while the player is there, "Forget
-- this browser" on the server, and emails' HTML with the board as pictures. The new
-- columns' defaults say the truth of older rows (a link of the release: not known to have
-- been emailed, so it never counts as an answer to an invitation, which it has no row of).

-- a game between computers: who started it (pbem/computer.py)
ALTER TABLE games ADD COLUMN client TEXT;
ALTER TABLE seats ADD COLUMN seen_at TEXT;  -- when the seat's game page was last open (notify.seen)
-- 1: minted for an email to the seat (pbem/invites.py)
ALTER TABLE links ADD COLUMN emailed INTEGER NOT NULL DEFAULT 0;
-- an email's HTML part, and the SVG of the board it shows as pictures (pbem/mail/pictures.py)
ALTER TABLE outbox ADD COLUMN html TEXT;
ALTER TABLE outbox ADD COLUMN board TEXT;

-- the few games between computers
CREATE INDEX games_client ON games (client, status) WHERE client IS NOT NULL;

CREATE TABLE forgotten_lists (  -- "Forget this browser": a copy of its cookie lists nothing
    list_id TEXT PRIMARY KEY,
    forgotten_at TEXT
);

CREATE TABLE invites (        -- each start email, sent or held back (pbem/invites.py)
    game_id TEXT,
    seat INTEGER,
    address TEXT NOT NULL,    -- the seat's address, normalised (``invites.address_key``)
    sent INTEGER NOT NULL,    -- 1: emailed; 0: held back (the address had too many)
    answered INTEGER NOT NULL,  -- 1: the address acted through a link emailed to it
    created_at TEXT NOT NULL,
    PRIMARY KEY (game_id, seat)
);
CREATE INDEX idx_invites_address_created_at ON invites (address, created_at);
