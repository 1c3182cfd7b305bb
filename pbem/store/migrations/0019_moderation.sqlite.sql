-- The moderation log of 0019_moderation.sql is append-only: no row of it changes or goes.
CREATE TRIGGER moderation_log_no_update BEFORE UPDATE ON moderation_log
BEGIN SELECT RAISE(ABORT, 'the moderation log is append-only'); END;
CREATE TRIGGER moderation_log_no_delete BEFORE DELETE ON moderation_log
BEGIN SELECT RAISE(ABORT, 'the moderation log is append-only'); END;
