-- 0003: settings the daemon keeps between runs, such as the fingerprint of
-- the last registered slash-command definitions.

CREATE TABLE settings (
	key   TEXT NOT NULL PRIMARY KEY CHECK (length(CAST(key AS BLOB)) BETWEEN 1 AND 63),
	value TEXT NOT NULL CHECK (length(CAST(value AS BLOB)) <= 1023)
) STRICT, WITHOUT ROWID;
