-- 0004 (PostgreSQL): a game's number between moves and each member's
-- preferences at a table (migrations/0004_note.sql).

ALTER TABLE games ADD COLUMN note BIGINT NOT NULL DEFAULT 0;
ALTER TABLE members ADD COLUMN prefs BIGINT NOT NULL DEFAULT 0 CHECK (prefs >= 0);
