-- What a stranger could do to everyone (issue 37): "Your games" emails counted per mailbox,
-- public profiles that list only the games their player knows of, sessions that end on the
-- server, and handles unique by how they look.

-- "Your games" emails are counted and refused per mailbox, however the address is spelt:
-- the address as invites.address_key writes it. Addresses are ASCII (matches.valid_email),
-- so that is the address in lower case, without a "+tag", and for Gmail without dots.
-- Split here in SQL that both engines run, which has no function to find a character:
-- ltrim() of every character an address may hold but "@" (then but "+") leaves what
-- begins at that character.
CREATE TEMP VIEW mailboxes AS
SELECT email, CASE WHEN domain IN ('gmail.com', 'googlemail.com')
                   THEN replace(untagged, '.', '') || '@gmail.com'
                   ELSE untagged || '@' || domain END AS address
FROM (SELECT email, domain,
             substr(local, 1, length(local) - length(ltrim(local,
                 '!"#$%&''()*,-./0123456789:;<=>?[\]^_`abcdefghijklmnopqrstuvwxyz{|}~')))
                 AS untagged
      FROM (SELECT email,
                   substr(lower(email), 1, length(email) - length(ltrim(lower(email),
                       '!"#$%&''()*+,-./0123456789:;<=>?[\]^_`abcdefghijklmnopqrstuvwxyz{|}~')))
                       AS local,
                   rtrim(substr(ltrim(lower(email),
                       '!"#$%&''()*+,-./0123456789:;<=>?[\]^_`abcdefghijklmnopqrstuvwxyz{|}~'),
                       2), '.') AS domain
            FROM (SELECT email FROM home_links UNION SELECT email FROM home_optouts)
                 AS typed) AS split) AS untagged_addresses;

ALTER TABLE home_links ADD COLUMN address TEXT;  -- the mailbox the link was emailed to
UPDATE home_links SET address = (SELECT address FROM mailboxes m WHERE m.email = home_links.email);
CREATE INDEX home_links_address ON home_links (address, created_at);

CREATE TABLE mailbox_optouts (  -- mailboxes that want no more "Your games" emails
    address TEXT PRIMARY KEY,   -- invites.address_key of the address that opted out
    created_at TEXT
);
INSERT INTO mailbox_optouts (address, created_at)
SELECT m.address, min(o.created_at) FROM home_optouts o JOIN mailboxes m ON m.email = o.email
GROUP BY m.address;
DROP VIEW mailboxes;
DROP TABLE home_optouts;
ALTER TABLE mailbox_optouts RENAME TO home_optouts;

-- A seat whose address answered it: acted through a link emailed to it, or opened it with
-- its player's own link (pbem/invites.py). A public profile lists the seats of the
-- player's address that answered (pbem/players.py), not one that only carries the address,
-- which anyone may type into a new game. Before, answering was noted for invitations.
ALTER TABLE seats ADD COLUMN answered INTEGER NOT NULL DEFAULT 0;
UPDATE seats SET answered = 1 WHERE EXISTS (SELECT 1 FROM invites i WHERE
    i.game_id = seats.game_id AND i.seat = seats.seat AND i.answered = 1);

-- What a handle looks like (players.skeleton): no two players' are alike. In lower case,
-- each character a handle may hold is what Unicode's confusables make of it or of its
-- other case (i, l and 1 look like l; o and 0 like o; m like rn), and _ is -: what
-- players.skeleton does, here for the handles made before.
ALTER TABLE players ADD COLUMN skeleton TEXT;
UPDATE players SET skeleton = replace(replace(replace(replace(replace(lower(handle),
    'i', 'l'), '1', 'l'), '0', 'o'), 'm', 'rn'), '_', '-');
CREATE INDEX players_skeleton ON players (skeleton);

-- The browsers signed in as a player, one row per session: "Sign out" deletes its row, so
-- that a copy of the cookie signs nobody in (pbem/players.py)
CREATE TABLE player_sessions (
    token_hash TEXT PRIMARY KEY,  -- sha256 of the secret the signed cookie holds
    player_id INTEGER NOT NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX player_sessions_player ON player_sessions (player_id);
