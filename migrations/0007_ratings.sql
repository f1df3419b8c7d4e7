-- 0007: ratings kept up to date as games end, so that /leaderboard and
-- /stats read them instead of replaying every finished game.
--
-- games.rated is a finished game's place in the order the ratings took it
-- in (1, 2, 3 ...; 0: not rated yet). The rating depends on that order, so
-- it is the order of a rebuild too: a game that ends later is rated later,
-- whatever the clock said (two games in the same millisecond, a clock set
-- back).
--
-- ratings: one row per game kind, scope, period and player, as if every
-- game of that kind and scope finished in that period had been rated anew
-- from nothing, in `rated` order. scope is a server id, or '' for all
-- servers; span is 0 all time, 1 the calendar year, 2 the calendar month,
-- 3 the week from Monday, in UTC; starts is the period's first millisecond
-- (0 for all time). ordinal is mu - 3 sigma, the ranking key; name_key the
-- name as /stats looks it up (lower case, without Markdown escapes).
--
-- SQL alone cannot compute a rating: the setting 'ratings' = 'build' says
-- that the rows are still to be built from the finished games, which the
-- bot does at start, in one transaction, before it reads or updates them.

ALTER TABLE games ADD COLUMN rated INTEGER NOT NULL DEFAULT 0 CHECK (rated >= 0);

CREATE UNIQUE INDEX games_rated ON games (rated) WHERE rated > 0;

CREATE TABLE ratings (
	game     TEXT    NOT NULL CHECK (length(CAST(game AS BLOB)) BETWEEN 1 AND 15),
	scope    TEXT    NOT NULL CHECK (length(CAST(scope AS BLOB)) <= 63),
	span     INTEGER NOT NULL CHECK (span IN (0, 1, 2, 3)),
	starts   INTEGER NOT NULL CHECK (starts >= 0),
	player   TEXT    NOT NULL CHECK (length(CAST(player AS BLOB)) BETWEEN 1 AND 63),
	name     TEXT    NOT NULL CHECK (length(CAST(name AS BLOB)) <= 63),
	name_key TEXT    NOT NULL CHECK (length(CAST(name_key AS BLOB)) <= 63),
	mu       REAL    NOT NULL,
	sigma    REAL    NOT NULL,
	ordinal  REAL    NOT NULL,
	games    INTEGER NOT NULL CHECK (games >= 1),
	wins     INTEGER NOT NULL CHECK (wins >= 0),
	cthulhu  INTEGER NOT NULL CHECK (cthulhu >= 0),
	PRIMARY KEY (game, scope, span, starts, player)
) WITHOUT ROWID;

-- The leaderboard (top N by ordinal among those with enough games) and a
-- player's rank (how many rank above).
CREATE INDEX ratings_rank ON ratings (game, scope, span, starts, ordinal DESC, games DESC, player);

-- /stats by name.
CREATE INDEX ratings_name ON ratings (game, scope, span, starts, name_key);

-- How many have too few games to be ranked (when ranked takes at most 16:
-- a row with more games is no longer in this index, so its updates leave
-- it alone).
CREATE INDEX ratings_new ON ratings (game, scope, span, starts, games) WHERE games < 16;

-- How many rows of a period have each bucket of ordinal (bucket: the
-- floor of 4 ordinal) and number of games (16 standing for 16 or more),
-- so that a rank adds up the buckets above and walks only its own.
CREATE TABLE rating_counts (
	game     TEXT    NOT NULL,
	scope    TEXT    NOT NULL,
	span     INTEGER NOT NULL,
	starts   INTEGER NOT NULL,
	bucket   INTEGER NOT NULL,
	games    INTEGER NOT NULL CHECK (games BETWEEN 1 AND 16),
	n        INTEGER NOT NULL CHECK (n >= 0),
	PRIMARY KEY (game, scope, span, starts, bucket, games)
) WITHOUT ROWID;

INSERT INTO settings (key, value) VALUES ('ratings', 'build');
