-- Tournaments (pbem/tournaments.py): players enter, rounds of ordinary games are paired
-- (pbem/pairings.py), and standings are counted from the results kept here.

CREATE TABLE tournaments (
    id TEXT PRIMARY KEY,         -- public: its page and its JSON are open to anyone
    name TEXT NOT NULL,
    game TEXT NOT NULL,          -- the engine's id
    options TEXT NOT NULL,       -- JSON: the game's options
    clock TEXT NOT NULL,         -- JSON: each game's time control (its vacation_days too)
    format TEXT NOT NULL,        -- round-robin | swiss | knockout | league
    rounds INTEGER,              -- swiss: how many; round-robin, league: 2 for a double one
    division_size INTEGER,       -- league: players in a division
    promote INTEGER,             -- league: how many go up (and down) a division each season
    season INTEGER NOT NULL DEFAULT 1,  -- league: this season's number
    previous_id TEXT,            -- league: the season before, whose players it re-entered
    min_players INTEGER NOT NULL,
    max_players INTEGER,         -- null: no limit
    rated INTEGER NOT NULL DEFAULT 0,
    public INTEGER NOT NULL DEFAULT 1,   -- listed on /tournaments and in the lobby
    organiser_id INTEGER NOT NULL,       -- players.id
    starts_at TEXT,              -- sign-up closes and the job starts it; null: the organiser
    round_days INTEGER,          -- a round's games are adjudicated this long after it starts
    adjudication TEXT NOT NULL DEFAULT 'draw',  -- draw | time (the one with less loses)
    status TEXT NOT NULL,        -- open | running | finished | cancelled
    round INTEGER NOT NULL DEFAULT 0,    -- the latest round started
    round_deadline TEXT,         -- when the latest round's unfinished games are adjudicated
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX tournaments_status ON tournaments (status, created_at);

CREATE TABLE tournament_players (
    tournament_id TEXT NOT NULL,
    player_id INTEGER NOT NULL,  -- players.id (a computer level is a player too)
    seed INTEGER NOT NULL,       -- the order of entry
    withdrawn_at TEXT,           -- withdrawn once started: kept in the standings, not paired
    division INTEGER,            -- league: 1 the top division
    next_season INTEGER NOT NULL DEFAULT 1,  -- league: 0 once opted out of the next season
    PRIMARY KEY (tournament_id, player_id)
);
CREATE INDEX tournament_players_player ON tournament_players (player_id);

CREATE TABLE tournament_games (
    tournament_id TEXT NOT NULL,
    round INTEGER NOT NULL,
    number INTEGER NOT NULL,     -- its place among the round's games (a bye last)
    game_id TEXT,                -- null: a bye (a point without a game)
    first_id INTEGER NOT NULL,   -- the player of seat 0, who moves first
    second_id INTEGER,           -- null: a bye
    points REAL,                 -- the first player's once the game is over: 1, 0.5, 0
    ended_at TEXT,
    PRIMARY KEY (tournament_id, round, number)
);
CREATE UNIQUE INDEX tournament_games_game ON tournament_games (game_id);
