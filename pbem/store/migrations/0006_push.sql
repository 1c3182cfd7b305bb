-- Web Push (pbem/mail/push.py) and the choice of channels (pbem/mail/channels.py).

CREATE TABLE push_subscriptions (  -- a device that shows a seat's news as notifications
    game_id TEXT NOT NULL,
    seat INTEGER NOT NULL,
    endpoint TEXT NOT NULL,   -- the push service's URL of the device's subscription
    p256dh TEXT NOT NULL,     -- its public key and authentication secret (RFC 8291)
    auth TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (game_id, seat, endpoint)
);
-- a 404 or 410 of the push service ends the device's subscription for every seat
CREATE INDEX push_subscriptions_endpoint ON push_subscriptions (endpoint);

-- JSON {topic: "push" | "email" | "both" | "none"}; NULL or a missing topic: both
ALTER TABLE seats ADD COLUMN channels TEXT;
-- a deadline warning pushed first: when its email follows if the seat has still not moved
ALTER TABLE clock_warnings ADD COLUMN email_at TEXT;
