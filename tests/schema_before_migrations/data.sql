-- A game of Mastery four moves in, its emails still queued, as the released server
-- (021c809) left them in its database; snapshots (a cache) aside. The secrets of its
-- links are in the emails' bodies, as they were sent.
INSERT INTO games (id, game, players, options, seed, created_at, status, ply, to_move, outcome, updated_at, clock, public) VALUES ('jxYMUky3', 'mastery', 2, '{"setup": "imperial", "repetition_draw": true}', '51f066f5423a0498d9fd63b179c7aca8', '2026-11-26T12:43:44+00:00', 'active', 4, '[0]', NULL, '2026-11-26T12:43:44+00:00', '{"mode": "none"}', 0);
INSERT INTO seats (game_id, seat, name, email, notify, webhook, bot, stand_in) VALUES ('jxYMUky3', 0, 'Ann', 'ann@example.org', 'each', NULL, NULL, 0);
INSERT INTO seats (game_id, seat, name, email, notify, webhook, bot, stand_in) VALUES ('jxYMUky3', 1, 'Bob', 'bob@example.org', 'each', NULL, NULL, 0);
INSERT INTO events (game_id, seq, seat, kind, move, created_at, text) VALUES ('jxYMUky3', 1, 0, 'move', 'd1-c1', '2026-11-26T12:43:44+00:00', NULL);
INSERT INTO events (game_id, seq, seat, kind, move, created_at, text) VALUES ('jxYMUky3', 2, 1, 'move', 'c5-d5', '2026-11-26T12:43:44+00:00', NULL);
INSERT INTO events (game_id, seq, seat, kind, move, created_at, text) VALUES ('jxYMUky3', 3, 0, 'move', 'c1-d1', '2026-11-26T12:43:44+00:00', NULL);
INSERT INTO events (game_id, seq, seat, kind, move, created_at, text) VALUES ('jxYMUky3', 4, 1, 'move', 'd5-c5', '2026-11-26T12:43:44+00:00', NULL);
INSERT INTO links (token_hash, game_id, seat, created_at) VALUES ('ffa601f4de892001e2e451735da1b1312609a28e1e48e1581ca6079d7ce33e71', 'jxYMUky3', 0, '2026-11-26T12:43:44+00:00');
INSERT INTO links (token_hash, game_id, seat, created_at) VALUES ('5c95522dc270817987674b8ba08557da526ea5374d95e4518567c6d24476d837', 'jxYMUky3', 1, '2026-11-26T12:43:44+00:00');
INSERT INTO links (token_hash, game_id, seat, created_at) VALUES ('a76906965eec617bb1a82ac8fe16d2e0bd1560a7cc6aa1fac84cb54b59ed6473', 'jxYMUky3', NULL, '2026-11-26T12:43:44+00:00');
INSERT INTO links (token_hash, game_id, seat, created_at) VALUES ('d31b93593a4371aa84c4d30d1528a2b3f45f6efd9e7145e5e96bc0a05a9bcb72', 'jxYMUky3', 0, '2026-11-26T12:43:44+00:00');
INSERT INTO links (token_hash, game_id, seat, created_at) VALUES ('236017e113fdd2769da7aabd84ca4615c7fd196d17f3a79e6a4173e820d67553', 'jxYMUky3', 1, '2026-11-26T12:43:44+00:00');
INSERT INTO links (token_hash, game_id, seat, created_at) VALUES ('472079f5645d356a696eb8b91cb491633bfa7fd46cd3299865bc663219af5972', 'jxYMUky3', 1, '2026-11-26T12:43:44+00:00');
INSERT INTO links (token_hash, game_id, seat, created_at) VALUES ('a4e8e4e350d45e2655f9305651b0aa2afa562cc0c93a0915938b652b1e8c5b72', 'jxYMUky3', 0, '2026-11-26T12:43:44+00:00');
INSERT INTO links (token_hash, game_id, seat, created_at) VALUES ('84a37d43a0b6d759e2ff9f3f89e108106e167e0eddd58c1b8445b98679c27a39', 'jxYMUky3', 1, '2026-11-26T12:43:44+00:00');
INSERT INTO links (token_hash, game_id, seat, created_at) VALUES ('f969e1c8590c1a6b4185251031c9e12c7ddee5f168209409ef83adff3e94d8cd', 'jxYMUky3', 0, '2026-11-26T12:43:44+00:00');
INSERT INTO outbox (message_id, game_id, recipient, subject, body, headers, created_at, status, attempts, next_attempt_at, sent_at, last_error, kind, seat, unique_key, channel) VALUES ('<179569702491.28015.7506982641463550878@pbem.localhost>', 'jxYMUky3', 'ann@example.org', 'Game started — Mastery: Ann vs Bob [jxYMUky3]', 'Hello Ann,

A game of Mastery has started:
  Dark: Ann (you)
  Light: Bob

You play Dark; your opponent: Bob.
It is your turn.

    a b c d e f g h
 8  . . m m m . . .  8
 7  . . o o o . . .  7
 6  . p p o p p . .  6
 5  . . p . p . . .  5
 4  . . . P . P . .  4
 3  . . P P O P P .  3
 2  . . . O O O . .  2
 1  . . . M M M . .  1
    a b c d e f g h

Dark: M O P (capitals), Light: m o p; M Master, O Officer, P Pawn.

You have 40 legal moves, for example: d1-c1, f1-g1, f2-g2, c3-b4, e3-e4, g3-h3, d4-e4, f4-g4.

Your secret link to the game (anyone who has it can play for you, so keep it to yourself):
http://localhost/play/xRB6i1deeK17spXbonQfXxi9uwZNvqUM

Spectators can follow the game at:
http://localhost/watch/6Cfr73p1CmbVBA0bzCRVBXxbsDw8U597

The rules: http://localhost/rules/mastery

You can choose an email at every turn (the default), one daily digest of your games that
wait for you, or no turn emails at all: see the email settings link below.
-- 
Emails about this game (at every turn, a daily digest, or none):
http://localhost/email/bST3u2aQswdFtTs2XqJ7qF86N2XxHOyt
Unsubscribe from this game''s turn emails: http://localhost/email/bST3u2aQswdFtTs2XqJ7qF86N2XxHOyt/unsubscribe
', '{"References": "<game-jxYMUky3@pbem.localhost>", "In-Reply-To": "<game-jxYMUky3@pbem.localhost>", "Reply-To": "move+0.xRB6i1deeK17spXbonQfXxi9uwZNvqUM@pbem.localhost", "List-Unsubscribe": "<http://localhost/email/bST3u2aQswdFtTs2XqJ7qF86N2XxHOyt/unsubscribe>", "List-Unsubscribe-Post": "List-Unsubscribe=One-Click"}', '2026-11-26T12:43:44+00:00', 'pending', 0, '2026-11-26T12:43:44+00:00', NULL, NULL, 'start', 0, NULL, 'email');
INSERT INTO outbox (message_id, game_id, recipient, subject, body, headers, created_at, status, attempts, next_attempt_at, sent_at, last_error, kind, seat, unique_key, channel) VALUES ('<179569702491.28015.17037068433711927143@pbem.localhost>', 'jxYMUky3', 'bob@example.org', 'Game started — Mastery: Ann vs Bob [jxYMUky3]', 'Hello Bob,

A game of Mastery has started:
  Dark: Ann
  Light: Bob (you)

You play Light; your opponent: Ann.
You will get an email when it is your turn.

    h g f e d c b a
 1  . . M M M . . .  1
 2  . . O O O . . .  2
 3  . P P O P P . .  3
 4  . . P . P . . .  4
 5  . . . p . p . .  5
 6  . . p p o p p .  6
 7  . . . o o o . .  7
 8  . . . m m m . .  8
    h g f e d c b a

Dark: M O P (capitals), Light: m o p; M Master, O Officer, P Pawn.

Your secret link to the game (anyone who has it can play for you, so keep it to yourself):
http://localhost/play/674DodbP5VcKEJ7M-3m45n1m67fvPe3Q

Spectators can follow the game at:
http://localhost/watch/6Cfr73p1CmbVBA0bzCRVBXxbsDw8U597

The rules: http://localhost/rules/mastery

You can choose an email at every turn (the default), one daily digest of your games that
wait for you, or no turn emails at all: see the email settings link below.
-- 
Emails about this game (at every turn, a daily digest, or none):
http://localhost/email/5VIr7KDhCQpgMUXBy3Gqt-ApD_p-on2d
Unsubscribe from this game''s turn emails: http://localhost/email/5VIr7KDhCQpgMUXBy3Gqt-ApD_p-on2d/unsubscribe
', '{"References": "<game-jxYMUky3@pbem.localhost>", "In-Reply-To": "<game-jxYMUky3@pbem.localhost>", "Reply-To": "move+0.674DodbP5VcKEJ7M-3m45n1m67fvPe3Q@pbem.localhost", "List-Unsubscribe": "<http://localhost/email/5VIr7KDhCQpgMUXBy3Gqt-ApD_p-on2d/unsubscribe>", "List-Unsubscribe-Post": "List-Unsubscribe=One-Click"}', '2026-11-26T12:43:44+00:00', 'pending', 0, '2026-11-26T12:43:44+00:00', NULL, NULL, 'start', 1, NULL, 'email');
INSERT INTO outbox (message_id, game_id, recipient, subject, body, headers, created_at, status, attempts, next_attempt_at, sent_at, last_error, kind, seat, unique_key, channel) VALUES ('<179569702494.28015.601845998930285783@pbem.localhost>', 'jxYMUky3', 'bob@example.org', 'Your move — Mastery: Ann vs Bob [jxYMUky3]', 'Hello Bob,

It is your turn in Mastery (ply 1).
Ann played: d1-c1

    h g f e d c b a
 1  . . M M . M . .  1
 2  . . O O O . . .  2
 3  . P P O P P . .  3
 4  . . P . P . . .  4
 5  . . . p . p . .  5
 6  . . p p o p p .  6
 7  . . . o o o . .  7
 8  . . . m m m . .  8
    h g f e d c b a

Dark: M O P (capitals), Light: m o p; M Master, O Officer, P Pawn.

You have 40 legal moves, for example: c5-d5, e5-f5, b6-a6, c6-d5, e6-f7, f6-f5, e7-f7, d8xd7.

Make your move here:
http://localhost/play/HyzpdxZRruOVdKZf6n_zguRqXF3Z2TJ0

The rules: http://localhost/rules/mastery
-- 
Emails about this game (at every turn, a daily digest, or none):
http://localhost/email/8yIZuFJ8zhuaUui92Gogz4G1dpciMsOc
Unsubscribe from this game''s turn emails: http://localhost/email/8yIZuFJ8zhuaUui92Gogz4G1dpciMsOc/unsubscribe
', '{"References": "<game-jxYMUky3@pbem.localhost>", "In-Reply-To": "<game-jxYMUky3@pbem.localhost>", "Reply-To": "move+1.HyzpdxZRruOVdKZf6n_zguRqXF3Z2TJ0@pbem.localhost", "List-Unsubscribe": "<http://localhost/email/8yIZuFJ8zhuaUui92Gogz4G1dpciMsOc/unsubscribe>", "List-Unsubscribe-Post": "List-Unsubscribe=One-Click"}', '2026-11-26T12:43:44+00:00', 'pending', 0, '2026-11-26T12:43:44+00:00', NULL, NULL, 'turn', 1, NULL, 'email');
INSERT INTO outbox (message_id, game_id, recipient, subject, body, headers, created_at, status, attempts, next_attempt_at, sent_at, last_error, kind, seat, unique_key, channel) VALUES ('<179569702496.28015.6314757654776907461@pbem.localhost>', 'jxYMUky3', 'ann@example.org', 'Your move — Mastery: Ann vs Bob [jxYMUky3]', 'Hello Ann,

It is your turn in Mastery (ply 2).
Bob played: c5-d5

    a b c d e f g h
 8  . . m m m . . .  8
 7  . . o o o . . .  7
 6  . p p o p p . .  6
 5  . . . p p . . .  5
 4  . . . P . P . .  4
 3  . . P P O P P .  3
 2  . . . O O O . .  2
 1  . . M . M M . .  1
    a b c d e f g h

Dark: M O P (capitals), Light: m o p; M Master, O Officer, P Pawn.

You have 43 legal moves, for example: c1-d1, e1-d1, d2-c2, c3-c4, d3-c4, f3-g2, g3-h2, d4-c5.

Make your move here:
http://localhost/play/Rk4NB-Vzi-ifyYoC0ESB_5oXbOYSsZiC

The rules: http://localhost/rules/mastery
-- 
Emails about this game (at every turn, a daily digest, or none):
http://localhost/email/ADhmfYNBU54j3__YS654azyTcPes_RNb
Unsubscribe from this game''s turn emails: http://localhost/email/ADhmfYNBU54j3__YS654azyTcPes_RNb/unsubscribe
', '{"References": "<game-jxYMUky3@pbem.localhost>", "In-Reply-To": "<game-jxYMUky3@pbem.localhost>", "Reply-To": "move+2.Rk4NB-Vzi-ifyYoC0ESB_5oXbOYSsZiC@pbem.localhost", "List-Unsubscribe": "<http://localhost/email/ADhmfYNBU54j3__YS654azyTcPes_RNb/unsubscribe>", "List-Unsubscribe-Post": "List-Unsubscribe=One-Click"}', '2026-11-26T12:43:44+00:00', 'pending', 0, '2026-11-26T12:43:44+00:00', NULL, NULL, 'turn', 0, NULL, 'email');
INSERT INTO outbox (message_id, game_id, recipient, subject, body, headers, created_at, status, attempts, next_attempt_at, sent_at, last_error, kind, seat, unique_key, channel) VALUES ('<179569702497.28015.5877582075260002021@pbem.localhost>', 'jxYMUky3', 'bob@example.org', 'Your move — Mastery: Ann vs Bob [jxYMUky3]', 'Hello Bob,

It is your turn in Mastery (ply 3).
Ann played: c1-d1

    h g f e d c b a
 1  . . M M M . . .  1
 2  . . O O O . . .  2
 3  . P P O P P . .  3
 4  . . P . P . . .  4
 5  . . . p p . . .  5
 6  . . p p o p p .  6
 7  . . . o o o . .  7
 8  . . . m m m . .  8
    h g f e d c b a

Dark: M O P (capitals), Light: m o p; M Master, O Officer, P Pawn.

You have 36 legal moves, for example: d5-c5, e5-f5, b6-b7, b6-a5, e6-f5, f6-g7, e7-g7, d8xd7.

Make your move here:
http://localhost/play/-tXX7nyRNa_AilnO2b9uCSAsHZKXvgxY

The rules: http://localhost/rules/mastery
-- 
Emails about this game (at every turn, a daily digest, or none):
http://localhost/email/Qdf828z3NNJ6ycMUpkgSny8pkXE9VeIz
Unsubscribe from this game''s turn emails: http://localhost/email/Qdf828z3NNJ6ycMUpkgSny8pkXE9VeIz/unsubscribe
', '{"References": "<game-jxYMUky3@pbem.localhost>", "In-Reply-To": "<game-jxYMUky3@pbem.localhost>", "Reply-To": "move+3.-tXX7nyRNa_AilnO2b9uCSAsHZKXvgxY@pbem.localhost", "List-Unsubscribe": "<http://localhost/email/Qdf828z3NNJ6ycMUpkgSny8pkXE9VeIz/unsubscribe>", "List-Unsubscribe-Post": "List-Unsubscribe=One-Click"}', '2026-11-26T12:43:44+00:00', 'pending', 0, '2026-11-26T12:43:44+00:00', NULL, NULL, 'turn', 1, NULL, 'email');
INSERT INTO outbox (message_id, game_id, recipient, subject, body, headers, created_at, status, attempts, next_attempt_at, sent_at, last_error, kind, seat, unique_key, channel) VALUES ('<179569702498.28015.16017908116364626842@pbem.localhost>', 'jxYMUky3', 'ann@example.org', 'Your move — Mastery: Ann vs Bob [jxYMUky3]', 'Hello Ann,

It is your turn in Mastery (ply 4).
Bob played: d5-c5

    a b c d e f g h
 8  . . m m m . . .  8
 7  . . o o o . . .  7
 6  . p p o p p . .  6
 5  . . p . p . . .  5
 4  . . . P . P . .  4
 3  . . P P O P P .  3
 2  . . . O O O . .  2
 1  . . . M M M . .  1
    a b c d e f g h

Dark: M O P (capitals), Light: m o p; M Master, O Officer, P Pawn.

You have 40 legal moves, for example: d1-c1, f1-g1, f2-g2, c3-b4, e3-e4, g3-h3, d4-e4, f4-g4.

Make your move here:
http://localhost/play/lPZSOmHreBLFvy2DSP-C4WQFhV3I_cZ0

The rules: http://localhost/rules/mastery
-- 
Emails about this game (at every turn, a daily digest, or none):
http://localhost/email/WpNW06A_76khom5tfdGWt2Vz4fNSnEEk
Unsubscribe from this game''s turn emails: http://localhost/email/WpNW06A_76khom5tfdGWt2Vz4fNSnEEk/unsubscribe
', '{"References": "<game-jxYMUky3@pbem.localhost>", "In-Reply-To": "<game-jxYMUky3@pbem.localhost>", "Reply-To": "move+4.lPZSOmHreBLFvy2DSP-C4WQFhV3I_cZ0@pbem.localhost", "List-Unsubscribe": "<http://localhost/email/WpNW06A_76khom5tfdGWt2Vz4fNSnEEk/unsubscribe>", "List-Unsubscribe-Post": "List-Unsubscribe=One-Click"}', '2026-11-26T12:43:44+00:00', 'pending', 0, '2026-11-26T12:43:44+00:00', NULL, NULL, 'turn', 0, NULL, 'email');
INSERT INTO email_links (token_hash, purpose, game_id, seat, email, created_at) VALUES ('446933735e8f40b91b4cb4355d05f9c64dbdf8151cd3fa2dce98984b774ed30e', 'seat', 'jxYMUky3', 0, NULL, '2026-11-26T12:43:44+00:00');
INSERT INTO email_links (token_hash, purpose, game_id, seat, email, created_at) VALUES ('21ec3d7329d3a362ecc9db6f3c5a57b13a97ffe8509d9670a4bc0c8bd1aecece', 'seat', 'jxYMUky3', 1, NULL, '2026-11-26T12:43:44+00:00');
INSERT INTO email_links (token_hash, purpose, game_id, seat, email, created_at) VALUES ('2d3742d9546cd3056de087306694cc0dc5fb17e4a035d495a11f395dfbfbb12d', 'seat', 'jxYMUky3', 1, NULL, '2026-11-26T12:43:44+00:00');
INSERT INTO email_links (token_hash, purpose, game_id, seat, email, created_at) VALUES ('3405546fa34bc1d5cfb130c24634409745ab881d3413d3eb5f6b7742594a8243', 'seat', 'jxYMUky3', 0, NULL, '2026-11-26T12:43:44+00:00');
INSERT INTO email_links (token_hash, purpose, game_id, seat, email, created_at) VALUES ('251f255dbe56a2780203231c429543041d04dd283dbec3f41560dac6423af20e', 'seat', 'jxYMUky3', 1, NULL, '2026-11-26T12:43:44+00:00');
INSERT INTO email_links (token_hash, purpose, game_id, seat, email, created_at) VALUES ('d471a3ea1f5358d9712c3dbf30f623a3509306a94e4c48d1d4838d46f62e41ff', 'seat', 'jxYMUky3', 0, NULL, '2026-11-26T12:43:44+00:00');
INSERT INTO due (game_id, seat, kind, at, not_before) VALUES ('jxYMUky3', 0, 'reminder', '2026-11-26T12:43:44+00:00', NULL);
INSERT INTO due (game_id, seat, kind, at, not_before) VALUES ('jxYMUky3', 0, 'waiting', '2026-11-26T12:43:44+00:00', NULL);
