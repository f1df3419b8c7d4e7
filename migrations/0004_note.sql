-- 0004: a number a game keeps between moves for its table (CTHULHU!!!:
-- where a walk interrupted by a fight was going, so that it can go on), and
-- each member's preferences at a table (CTHULHU!!!: pass reaction windows,
-- be asked for the weapon of every roll).

ALTER TABLE games ADD COLUMN note INTEGER NOT NULL DEFAULT 0;
ALTER TABLE members ADD COLUMN prefs INTEGER NOT NULL DEFAULT 0 CHECK (prefs >= 0);
