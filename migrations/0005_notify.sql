-- 0005: whether a player wants to be called (mentioned) when a table waits
-- for their move, and reminded before it times out (/notify on|off).

ALTER TABLE players ADD COLUMN notify INTEGER NOT NULL DEFAULT 1 CHECK (notify IN (0, 1));
