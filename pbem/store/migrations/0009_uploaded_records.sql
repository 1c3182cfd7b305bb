-- Game records uploaded for review (pbem/web/records.py): Abstract Play's game record of
-- one of this server's games, kept as uploaded so that its review pages can be linked.
CREATE TABLE uploaded_records (
    id TEXT PRIMARY KEY,  -- public, in the review page's address
    game TEXT NOT NULL,
    record TEXT NOT NULL,  -- the JSON as uploaded
    created_at TEXT NOT NULL
);
