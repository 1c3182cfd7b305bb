-- The event log is append-only: no row of it changes or goes, and the table is never emptied.
CREATE OR REPLACE FUNCTION append_only() RETURNS trigger LANGUAGE plpgsql AS
$$ BEGIN RAISE EXCEPTION 'the event log is append-only'; END $$;
CREATE OR REPLACE TRIGGER events_no_update BEFORE UPDATE OR DELETE ON events
FOR EACH ROW EXECUTE FUNCTION append_only();
CREATE OR REPLACE TRIGGER events_no_truncate BEFORE TRUNCATE ON events
FOR EACH STATEMENT EXECUTE FUNCTION append_only();
