-- The counts of 0018_operations.sql, kept as the rows they count are written.
CREATE OR REPLACE FUNCTION count_move() RETURNS trigger LANGUAGE plpgsql AS
$$ BEGIN UPDATE games SET moves = moves + 1 WHERE id = NEW.game_id; RETURN NULL; END $$;
CREATE OR REPLACE TRIGGER games_count_moves AFTER INSERT ON events
FOR EACH ROW WHEN (NEW.kind = 'move') EXECUTE FUNCTION count_move();
CREATE OR REPLACE FUNCTION count_delivery() RETURNS trigger LANGUAGE plpgsql AS
$$ BEGIN
    INSERT INTO delivery_counts (channel, outcome, count)
    VALUES (NEW.channel, CASE NEW.status WHEN 'pending' THEN 'deferred' ELSE NEW.status END, 1)
    ON CONFLICT (channel, outcome) DO UPDATE SET count = delivery_counts.count + 1;
    RETURN NULL;
END $$;
CREATE OR REPLACE TRIGGER outbox_count_deliveries AFTER UPDATE OF attempts ON outbox
FOR EACH ROW WHEN (NEW.attempts > OLD.attempts) EXECUTE FUNCTION count_delivery();
