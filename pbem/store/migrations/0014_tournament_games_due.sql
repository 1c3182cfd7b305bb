-- A tournament's games too many to make in the request that calls for them (its start, a
-- new round once the last game of a round ends) are made by the job process
-- (pbem/tournaments.py, make_due): this says since when they wait for it; null: none do.
ALTER TABLE tournaments ADD COLUMN games_due_at TEXT;
CREATE INDEX tournaments_games_due ON tournaments (games_due_at) WHERE games_due_at IS NOT NULL;
