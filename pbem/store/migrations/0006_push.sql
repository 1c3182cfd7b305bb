-- Web Push (pbem/mail/push.py) and the choice of channels (pbem/mail/channels.py).

CREATE TABLE push_subscriptions (  -- a device that shows a seat's or a player's news
    id INTEGER PRIMARY KEY,
    endpoint TEXT NOT NULL,   -- the push service's URL of the device's subscription
    p256dh TEXT NOT NULL,     -- its public key and authentication secret (RFC 8291)
    auth TEXT NOT NULL,
    game_id TEXT,             -- a seat's device; or
    seat INTEGER,
    player_id INTEGER,        -- a player's device, told of all their seats while the
    generation INTEGER,       -- player's generation is this one (signing out everywhere ends it)
    created_at TEXT NOT NULL,
    CHECK ((game_id IS NOT NULL AND seat IS NOT NULL) <> (player_id IS NOT NULL))
);
-- one subscription per device and seat, and per device and player
CREATE UNIQUE INDEX push_subscriptions_seat ON push_subscriptions (game_id, seat, endpoint)
    WHERE game_id IS NOT NULL;
CREATE UNIQUE INDEX push_subscriptions_player ON push_subscriptions (player_id, endpoint)
    WHERE player_id IS NOT NULL;
-- a 404 or 410 of the push service ends the device's subscription for everyone
CREATE INDEX push_subscriptions_endpoint ON push_subscriptions (endpoint);

-- JSON {topic: "push" | "email" | "both" | "none"}; a topic missing from a seat's: the
-- player's, if the seat is a player's; then both
ALTER TABLE seats ADD COLUMN channels TEXT;
ALTER TABLE players ADD COLUMN channels TEXT;
-- a deadline warning pushed first: when its email follows if the seat has still not moved
ALTER TABLE clock_warnings ADD COLUMN email_at TEXT;
