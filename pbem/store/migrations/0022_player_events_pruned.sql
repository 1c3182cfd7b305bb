-- A player's events older than EVENTS_KEPT_DAYS are pruned (pbem/player_events.py, a job of
-- the scheduler), found by their time; the rest of the table stays append-only.
CREATE INDEX player_events_created ON player_events (created_at);
