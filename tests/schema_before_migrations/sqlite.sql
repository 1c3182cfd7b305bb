-- The schema that the server made before migrations (pbem/db.py at 021c809, the last
-- release, init_db), as SQLite describes it (sqlite_master): what
-- tests/test_migrations.py upgrades.
CREATE TABLE "games" (
   "id" TEXT PRIMARY KEY,
   "game" TEXT NOT NULL,
   "players" INTEGER NOT NULL,
   "options" TEXT NOT NULL,
   "seed" TEXT NOT NULL,
   "created_at" TEXT NOT NULL,
   "status" TEXT,
   "ply" INTEGER,
   "to_move" TEXT,
   "outcome" TEXT,
   "updated_at" TEXT
, "clock" TEXT, "public" INTEGER NOT NULL DEFAULT 0);
CREATE TABLE "seats" (
   "game_id" TEXT REFERENCES "games"("id"),
   "seat" INTEGER,
   "name" TEXT,
   "email" TEXT, "notify" TEXT NOT NULL DEFAULT 'each', "webhook" TEXT, "bot" TEXT, "stand_in" INTEGER NOT NULL DEFAULT 0,
   PRIMARY KEY ("game_id", "seat")
);
CREATE TABLE "events" (
   "game_id" TEXT REFERENCES "games"("id"),
   "seq" INTEGER,
   "seat" INTEGER,
   "kind" TEXT NOT NULL,
   "move" TEXT,
   "created_at" TEXT NOT NULL, "text" TEXT,
   PRIMARY KEY ("game_id", "seq")
);
CREATE TRIGGER events_no_update BEFORE UPDATE ON events BEGIN SELECT RAISE(ABORT, 'the event log is append-only'); END;
CREATE TRIGGER events_no_delete BEFORE DELETE ON events BEGIN SELECT RAISE(ABORT, 'the event log is append-only'); END;
CREATE TABLE "links" (
   "token_hash" TEXT PRIMARY KEY,
   "game_id" TEXT REFERENCES "games"("id"),
   "seat" INTEGER,
   "created_at" TEXT
);
CREATE TABLE "invitations" (
   "token_hash" TEXT PRIMARY KEY,
   "game_id" TEXT REFERENCES "games"("id"),
   "seat" INTEGER,
   "created_at" TEXT
);
CREATE TABLE "home_links" (
   "token_hash" TEXT PRIMARY KEY,
   "email" TEXT,
   "created_at" TEXT
);
CREATE TABLE "clock_warnings" (
   "game_id" TEXT REFERENCES "games"("id"),
   "seat" INTEGER,
   "turn_seq" INTEGER,
   "deadline" TEXT,
   "created_at" TEXT,
   PRIMARY KEY ("game_id", "seat", "turn_seq")
);
CREATE TABLE "outbox" (
   "id" INTEGER PRIMARY KEY,
   "message_id" TEXT,
   "game_id" TEXT,
   "recipient" TEXT,
   "subject" TEXT,
   "body" TEXT,
   "headers" TEXT,
   "created_at" TEXT,
   "status" TEXT,
   "attempts" INTEGER,
   "next_attempt_at" TEXT,
   "sent_at" TEXT,
   "last_error" TEXT
, "kind" TEXT NOT NULL DEFAULT 'other', "seat" INTEGER, "unique_key" TEXT, "channel" TEXT NOT NULL DEFAULT 'email');
CREATE INDEX seats_email_lower ON seats (lower(email));
CREATE INDEX "idx_links_game_id_seat"
    ON "links" ("game_id", "seat");
CREATE INDEX "idx_outbox_status_next_attempt_at"
    ON "outbox" ("status", "next_attempt_at");
CREATE UNIQUE INDEX outbox_unique_key ON outbox(unique_key) WHERE unique_key IS NOT NULL;
CREATE INDEX "idx_outbox_game_id_seat_kind"
    ON "outbox" ("game_id", "seat", "kind");
CREATE TABLE "conditional_lines" (
   "game_id" TEXT,
   "seat" INTEGER,
   "lines" TEXT NOT NULL,
   "updated_at" TEXT,
   PRIMARY KEY ("game_id", "seat")
);
CREATE INDEX "idx_games_public_status"
    ON "games" ("public", "status");
CREATE TABLE "email_links" (
   "token_hash" TEXT PRIMARY KEY,
   "purpose" TEXT,
   "game_id" TEXT,
   "seat" INTEGER,
   "email" TEXT,
   "created_at" TEXT
);
CREATE TABLE "home_optouts" (
   "email" TEXT PRIMARY KEY,
   "created_at" TEXT
);
CREATE TABLE "digest_days" (
   "day" TEXT PRIMARY KEY,
   "created_at" TEXT
);
CREATE TABLE "notes" (
   "game_id" TEXT REFERENCES "games"("id"),
   "seat" INTEGER,
   "text" TEXT,
   "updated_at" TEXT,
   PRIMARY KEY ("game_id", "seat")
);
CREATE TABLE "due" (
   "game_id" TEXT,
   "seat" INTEGER,
   "kind" TEXT,
   "at" TEXT NOT NULL,
   "not_before" TEXT,
   PRIMARY KEY ("game_id", "seat", "kind")
);
CREATE INDEX "idx_due_kind_at"
    ON "due" ("kind", "at");
CREATE INDEX seats_digest ON seats(game_id, seat) WHERE notify = 'digest';
CREATE TABLE "snapshots" (
   "game_id" TEXT PRIMARY KEY,
   "ply" INTEGER NOT NULL,
   "engine" TEXT NOT NULL,
   "state" BLOB NOT NULL,
   "to_move" TEXT NOT NULL
);
