-- 0005 (PostgreSQL): whether a player wants to be called when a table
-- waits for their move (migrations/0005_notify.sql).

ALTER TABLE players ADD COLUMN notify BIGINT NOT NULL DEFAULT 1 CHECK (notify IN (0, 1));
