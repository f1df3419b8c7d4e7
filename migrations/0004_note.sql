-- 0004: a number a game keeps between moves for its table (CTHULHU!!!:
-- where a walk interrupted by a fight was going, so that it can go on).

ALTER TABLE games ADD COLUMN note INTEGER NOT NULL DEFAULT 0;
