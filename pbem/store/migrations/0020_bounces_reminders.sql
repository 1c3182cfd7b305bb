-- Mail that gets through (issue 41): whether email reaches each mailbox, as the delivery
-- reports sent back to its envelope sender say (pbem/mail/bounces.py); and the reminders
-- each seat chooses before its clock runs out, and its digest sent once until its next
-- visit (pbem/mail/notify.py).

-- One row per mailbox an email went to (invites.address_key of its recipient).
CREATE TABLE mailboxes (
    address TEXT PRIMARY KEY,
    -- sha256 of the secret of its emails' envelope sender, bounce+<secret>@<reply domain>:
    -- the secret itself is never stored
    return_hash TEXT NOT NULL UNIQUE,
    bouncing_since TEXT,            -- null: email goes to it
    temporary_failures INTEGER NOT NULL DEFAULT 0,  -- reported in a row, since it last worked
    reported_message TEXT,          -- the Message-ID of the email the last report was of
    reported_at TEXT,
    reason TEXT,                    -- the last report's status and diagnostic, in one line
    created_at TEXT NOT NULL
);
CREATE INDEX mailboxes_bouncing ON mailboxes (bouncing_since) WHERE bouncing_since IS NOT NULL;

-- The hours before its clock runs out at which a seat is reminded to move, as JSON
-- ([24, 8, 1]); null: the one warning of every seat (clocks.warning_at).
ALTER TABLE seats ADD COLUMN deadline_reminders TEXT;
-- When a digest last listed the seat: a seat whose choice is one digest until its next
-- visit is listed again only once its page was open since (seen_at).
ALTER TABLE seats ADD COLUMN digested_at TEXT;
-- The reminders of the seats' own choice sent, one per seat, turn and hours before.
CREATE TABLE deadline_reminders_sent (
    game_id TEXT REFERENCES games(id),
    seat INTEGER,
    turn_seq INTEGER,               -- the event that began the turn (0: the game's start)
    hours INTEGER,                  -- how long before the deadline it was due
    created_at TEXT NOT NULL,
    PRIMARY KEY (game_id, seat, turn_seq, hours)
);
