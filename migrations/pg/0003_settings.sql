-- 0003 (PostgreSQL): settings the daemon keeps between runs
-- (migrations/0003_settings.sql).

CREATE TABLE settings (
	key   TEXT COLLATE "C" NOT NULL PRIMARY KEY CHECK (octet_length(key) BETWEEN 1 AND 63),
	value TEXT COLLATE "C" NOT NULL CHECK (octet_length(value) <= 1023)
);
