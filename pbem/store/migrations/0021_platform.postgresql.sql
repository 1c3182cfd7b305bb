-- A player's events never change (0021_platform.sql); they go only with their player.
CREATE OR REPLACE FUNCTION player_events_append_only() RETURNS trigger LANGUAGE plpgsql AS
$$ BEGIN RAISE EXCEPTION 'a player''s events are append-only'; END $$;
CREATE OR REPLACE TRIGGER player_events_no_update BEFORE UPDATE ON player_events
FOR EACH ROW EXECUTE FUNCTION player_events_append_only();
