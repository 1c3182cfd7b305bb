-- An uploaded record's replay, made once at upload (pbem/web/records.py), so that a review
-- page replays at most 15 moves instead of the whole record: the moves as replayed, the
-- players' names, and every 16th position and the last (pbem/positions.py's EVERY).
-- A record from before, or replayed by other rules (engine), is replayed again once.
ALTER TABLE uploaded_records ADD COLUMN engine TEXT;  -- the engine code of the replay
ALTER TABLE uploaded_records ADD COLUMN names TEXT;   -- JSON: the players' names
ALTER TABLE uploaded_records ADD COLUMN moves TEXT;   -- JSON: [seat, move] in the order played
CREATE TABLE record_positions (
    record_id TEXT NOT NULL REFERENCES uploaded_records (id),
    ply INTEGER NOT NULL,
    state BLOB NOT NULL,  -- the position after ply moves, pickled and compressed
    PRIMARY KEY (record_id, ply)
);

-- The outbox is delivered in two lanes, emails and posts over HTTP (pbem/mail/outbox.py):
-- each claims its own channels' due messages.
DROP INDEX idx_outbox_status_next_attempt_at;
CREATE INDEX idx_outbox_channel_status_next_attempt_at ON outbox (channel, status, next_attempt_at);
