-- Rated games and their players' Glicko-2 ratings (pbem/ratings.py), and challenges that
-- ask for a rating range (pbem/lobby.py).

ALTER TABLE games ADD COLUMN rated INTEGER NOT NULL DEFAULT 0;  -- 1: the end changes ratings
-- a public rated challenge's range of ratings (of its game) that may take its open seats
ALTER TABLE games ADD COLUMN rating_min INTEGER;
ALTER TABLE games ADD COLUMN rating_max INTEGER;

CREATE TABLE ratings (        -- a player's rating in one game (engine id); none: never rated
    player_id INTEGER NOT NULL,   -- players.id (a computer level is a player too)
    game TEXT NOT NULL,
    rating REAL NOT NULL,
    deviation REAL NOT NULL,
    volatility REAL NOT NULL,
    games INTEGER NOT NULL,   -- rated games finished
    updated_at TEXT NOT NULL,
    PRIMARY KEY (player_id, game)
);
CREATE INDEX ratings_game ON ratings (game, rating);

CREATE TABLE rating_changes (  -- what each rated game's end did to its players' ratings
    game_id TEXT NOT NULL,     -- the primary key applies a game's end once
    seat INTEGER NOT NULL,
    player_id INTEGER NOT NULL,
    rating_before REAL NOT NULL,
    rating_after REAL NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (game_id, seat)
);
CREATE INDEX rating_changes_player ON rating_changes (player_id);
