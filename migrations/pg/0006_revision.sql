-- 0006 (PostgreSQL): the revision of its game's rules a table plays by
-- (migrations/0006_revision.sql).

ALTER TABLE games ADD COLUMN revision BIGINT NOT NULL DEFAULT 0 CHECK (revision >= 0);
