-- Operating a site (issue 40): what the job process did and when, counts that /metrics
-- reads at once however large the tables grow, and the players who operate the site.

-- Each background job's runs, written by the job process as each run ends
-- (pbem/jobs/scheduler.py): /healthz says from them whether the jobs are late.
CREATE TABLE job_runs (
    job TEXT PRIMARY KEY,           -- its name: send-emails, play-bots, ...
    every_seconds REAL NOT NULL,    -- how often it is meant to run
    runs INTEGER NOT NULL,
    failures INTEGER NOT NULL,      -- runs that raised
    seconds REAL NOT NULL,          -- the time of all its runs, together
    last_started_at TEXT NOT NULL,
    last_ended_at TEXT NOT NULL,
    last_seconds REAL NOT NULL,
    last_error TEXT                 -- the last failure's exception, in one line
);

-- The attempts to deliver the outbox's messages, by channel (email, webhook, push) and
-- outcome: sent, deferred (failed, tried again later) or failed (given up). Counted by a
-- trigger as the outbox records each attempt (0018_operations.<engine>.sql).
CREATE TABLE delivery_counts (
    channel TEXT NOT NULL,
    outcome TEXT NOT NULL,
    count INTEGER NOT NULL,
    PRIMARY KEY (channel, outcome)
);
INSERT INTO delivery_counts (channel, outcome, count)
SELECT channel, status, count(*) FROM outbox WHERE status IN ('sent', 'failed')
GROUP BY channel, status;
INSERT INTO delivery_counts (channel, outcome, count)
SELECT channel, 'deferred', sum(attempts - CASE WHEN status = 'pending' THEN 0 ELSE 1 END)
FROM outbox WHERE attempts > 0 GROUP BY channel
HAVING sum(attempts - CASE WHEN status = 'pending' THEN 0 ELSE 1 END) > 0;

-- The moves recorded in each game, counted by a trigger as its log grows (a takeback
-- appends events too: the count never goes back). Not copied by copy-db or restore, which
-- count them again as they copy the events.
ALTER TABLE games ADD COLUMN moves INTEGER NOT NULL DEFAULT 0;
UPDATE games SET moves = (SELECT count(*) FROM events e WHERE e.game_id = games.id
                          AND e.kind = 'move');

-- What some players may do beyond playing: "operator", the console (pbem/roles.py)
CREATE TABLE player_roles (
    player_id INTEGER NOT NULL REFERENCES players (id),
    role TEXT NOT NULL,
    granted_at TEXT NOT NULL,
    PRIMARY KEY (player_id, role)
);
