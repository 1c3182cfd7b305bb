-- The moderation log of 0019_moderation.sql is append-only: no row of it changes or goes.
CREATE OR REPLACE FUNCTION moderation_log_append_only() RETURNS trigger LANGUAGE plpgsql AS
$$ BEGIN RAISE EXCEPTION 'the moderation log is append-only'; END $$;
CREATE OR REPLACE TRIGGER moderation_log_no_update BEFORE UPDATE OR DELETE ON moderation_log
FOR EACH ROW EXECUTE FUNCTION moderation_log_append_only();
CREATE OR REPLACE TRIGGER moderation_log_no_truncate BEFORE TRUNCATE ON moderation_log
FOR EACH STATEMENT EXECUTE FUNCTION moderation_log_append_only();
