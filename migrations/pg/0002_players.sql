-- 0002 (PostgreSQL): players, as last seen: display name and chosen
-- language (migrations/0002_players.sql).

CREATE TABLE players (
	id         TEXT   COLLATE "C" NOT NULL PRIMARY KEY CHECK (octet_length(id) BETWEEN 1 AND 63),
	name       TEXT   COLLATE "C" NOT NULL CHECK (octet_length(name) <= 63),
	lang       TEXT   COLLATE "C" NOT NULL DEFAULT '' CHECK (octet_length(lang) <= 7), -- '' unset
	created_at BIGINT NOT NULL CHECK (created_at >= 0),
	updated_at BIGINT NOT NULL CHECK (updated_at >= 0)
);
