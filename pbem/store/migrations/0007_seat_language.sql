-- A seat's language: its emails are written in it (pbem/languages.py); a seat of an older
-- game was emailed in English.
ALTER TABLE seats ADD COLUMN language TEXT NOT NULL DEFAULT 'en';
