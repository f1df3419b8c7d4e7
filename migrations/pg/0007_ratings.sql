-- 0007 (PostgreSQL): ratings kept up to date as games end
-- (migrations/0007_ratings.sql says what each column means).

ALTER TABLE games ADD COLUMN rated BIGINT NOT NULL DEFAULT 0 CHECK (rated >= 0);

CREATE UNIQUE INDEX games_rated ON games (rated) WHERE rated > 0;

CREATE TABLE ratings (
	game     TEXT   COLLATE "C" NOT NULL CHECK (octet_length(game) BETWEEN 1 AND 15),
	scope    TEXT   COLLATE "C" NOT NULL CHECK (octet_length(scope) <= 63),
	span     BIGINT NOT NULL CHECK (span IN (0, 1, 2, 3)),
	starts   BIGINT NOT NULL CHECK (starts >= 0),
	player   TEXT   COLLATE "C" NOT NULL CHECK (octet_length(player) BETWEEN 1 AND 63),
	name     TEXT   COLLATE "C" NOT NULL CHECK (octet_length(name) <= 63),
	name_key TEXT   COLLATE "C" NOT NULL CHECK (octet_length(name_key) <= 63),
	mu       DOUBLE PRECISION NOT NULL,
	sigma    DOUBLE PRECISION NOT NULL,
	ordinal  DOUBLE PRECISION NOT NULL,
	games    BIGINT NOT NULL CHECK (games >= 1),
	wins     BIGINT NOT NULL CHECK (wins >= 0),
	cthulhu  BIGINT NOT NULL CHECK (cthulhu >= 0),
	PRIMARY KEY (game, scope, span, starts, player)
);

CREATE INDEX ratings_rank ON ratings (game, scope, span, starts, ordinal DESC, games DESC, player);

CREATE INDEX ratings_name ON ratings (game, scope, span, starts, name_key);

CREATE INDEX ratings_new ON ratings (game, scope, span, starts, games) WHERE games < 16;

CREATE TABLE rating_counts (
	game     TEXT   COLLATE "C" NOT NULL,
	scope    TEXT   COLLATE "C" NOT NULL,
	span     BIGINT NOT NULL,
	starts   BIGINT NOT NULL,
	bucket   BIGINT NOT NULL,
	games    BIGINT NOT NULL CHECK (games BETWEEN 1 AND 16),
	n        BIGINT NOT NULL CHECK (n >= 0),
	PRIMARY KEY (game, scope, span, starts, bucket, games)
);

INSERT INTO settings (key, value) VALUES ('ratings', 'build');
