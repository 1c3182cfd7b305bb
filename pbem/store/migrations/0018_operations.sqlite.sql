-- The counts of 0018_operations.sql, kept as the rows they count are written.
CREATE TRIGGER games_count_moves AFTER INSERT ON events WHEN NEW.kind = 'move'
BEGIN UPDATE games SET moves = moves + 1 WHERE id = NEW.game_id; END;
CREATE TRIGGER outbox_count_deliveries AFTER UPDATE OF attempts ON outbox
WHEN NEW.attempts > OLD.attempts
BEGIN
    INSERT INTO delivery_counts (channel, outcome, count)
    VALUES (NEW.channel, CASE NEW.status WHEN 'pending' THEN 'deferred' ELSE NEW.status END, 1)
    ON CONFLICT (channel, outcome) DO UPDATE SET count = count + 1;
END;
