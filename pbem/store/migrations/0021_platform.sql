-- A platform for programs (issue 42): each player's stream of events, and bot accounts.

-- What a player's program is told of their games (GET /api/player/<key>/events,
-- pbem/player_events.py): a seat of theirs to move (turn), a seat a game offers them
-- (challenge), a game of theirs over (game_end). Numbered per player in the order their
-- transactions commit, so that a program reconnecting with the last number it saw misses
-- nothing, whichever worker or machine it reaches. No row changes (the triggers of
-- 0021_platform.<engine>.sql); a player's rows go with the player.
CREATE TABLE player_events (
    player_id INTEGER NOT NULL,
    seq INTEGER NOT NULL,       -- 1, 2, 3, ... per player: the stream's event id
    kind TEXT NOT NULL,         -- turn, challenge or game_end
    game_id TEXT NOT NULL,
    seat INTEGER NOT NULL,
    version INTEGER NOT NULL,   -- the game's version as that seat knew it then
    created_at TEXT NOT NULL,
    PRIMARY KEY (player_id, seq)
);
-- each seat's latest event, which a stream begins with (player_events.current)
CREATE INDEX player_events_seat ON player_events (player_id, game_id, seat, seq);

-- A player run by a program (pbem/botaccounts.py): its owner, the person who registered
-- it, and what it accepts to play.
CREATE TABLE bot_accounts (
    player_id INTEGER NOT NULL,  -- the bot's own player row
    owner_id INTEGER NOT NULL,   -- the player who registered it (itself, if it marked itself)
    games TEXT NOT NULL,         -- JSON list of the game ids it plays
    clocks TEXT NOT NULL,        -- JSON list of the clock modes it accepts (pbem/clocks.py)
    rated INTEGER NOT NULL,      -- 1: its owner lets it play rated games
    created_at TEXT NOT NULL,
    PRIMARY KEY (player_id)
);
CREATE INDEX bot_accounts_owner ON bot_accounts (owner_id);

-- an open seat a game offers to one player (a bot): only that player may take it
ALTER TABLE seats ADD COLUMN offered_to INTEGER;
