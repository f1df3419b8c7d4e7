-- 0006: the revision of its game's rules a table plays by, fixed when it is
-- opened (CTHULHU!!!: 1 from the secret hands of ruling C14 on), so that a
-- game begun under older rules still replays from its log by them; 0 for
-- every table opened before.

ALTER TABLE games ADD COLUMN revision INTEGER NOT NULL DEFAULT 0 CHECK (revision >= 0);
