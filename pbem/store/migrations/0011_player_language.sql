-- A player's language: the emails sent to the player rather than to a seat (sign-in links,
-- "Your games", tournaments) are written in it (pbem/languages.py). It is the language of
-- the page they first signed in from; a player from before was emailed in English.
ALTER TABLE players ADD COLUMN language TEXT NOT NULL DEFAULT 'en';
