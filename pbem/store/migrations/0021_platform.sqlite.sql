-- A player's events never change (0021_platform.sql); they go only with their player.
CREATE TRIGGER player_events_no_update BEFORE UPDATE ON player_events
BEGIN SELECT RAISE(ABORT, 'a player''s events are append-only'); END;
