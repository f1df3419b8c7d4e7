-- 0002: players, as last seen: display name and chosen language.
--
-- created_at and updated_at are milliseconds since the Unix epoch, set by
-- SQLite's clock when the row is written (store_player_put takes no time).

CREATE TABLE players (
	id         TEXT    NOT NULL PRIMARY KEY CHECK (length(CAST(id AS BLOB)) BETWEEN 1 AND 63),
	name       TEXT    NOT NULL CHECK (length(CAST(name AS BLOB)) <= 63),
	lang       TEXT    NOT NULL DEFAULT '' CHECK (length(CAST(lang AS BLOB)) <= 7), -- '' unset
	created_at INTEGER NOT NULL CHECK (created_at >= 0),
	updated_at INTEGER NOT NULL CHECK (updated_at >= 0)
) STRICT, WITHOUT ROWID;
