-- 0001: games, their members and their event logs.
--
-- Applied by the store inside its own BEGIN IMMEDIATE ... COMMIT, followed by
-- PRAGMA user_version = 1: a migration file must not open or close a
-- transaction itself, and must never be edited once released (add a new
-- NNNN_name.sql instead).
--
-- Tables are STRICT (SQLite 3.37 or later): a value of the wrong type is
-- refused instead of being stored under type affinity.
--
-- Unsigned 64-bit values (seed, rng0..rng3) are stored as INTEGER holding the
-- same 64-bit two's-complement pattern: values of 2^63 and above read as
-- negative numbers here (18446744073709551615 is stored as -1). The store
-- converts both ways without loss; compare them with that in mind.
--
-- Times are milliseconds since the Unix epoch, 0 meaning "not yet". Text
-- limits are in bytes (length of the BLOB cast), one less than the C buffers
-- in include/rlyeh/store.h.

CREATE TABLE games (
	id          INTEGER PRIMARY KEY AUTOINCREMENT, -- never reused: series_of points back
	server      TEXT    NOT NULL CHECK (length(CAST(server AS BLOB)) BETWEEN 1 AND 63),
	channel     TEXT    NOT NULL CHECK (length(CAST(channel AS BLOB)) BETWEEN 1 AND 63),
	game        TEXT    NOT NULL CHECK (length(CAST(game AS BLOB)) BETWEEN 1 AND 15),
	per_player  INTEGER NOT NULL DEFAULT 0 CHECK (per_player >= 0),
	lang        TEXT    NOT NULL DEFAULT '' CHECK (length(CAST(lang AS BLOB)) <= 7),
	owner       TEXT    NOT NULL DEFAULT '' CHECK (length(CAST(owner AS BLOB)) <= 63),
	state       INTEGER NOT NULL CHECK (state IN (0, 1, 2, 3)), -- lobby, playing, finished, aborted
	seed        INTEGER NOT NULL,
	rng0        INTEGER NOT NULL,
	rng1        INTEGER NOT NULL,
	rng2        INTEGER NOT NULL,
	rng3        INTEGER NOT NULL,
	first       INTEGER NOT NULL DEFAULT -1 CHECK (first >= -1),
	moves       INTEGER NOT NULL DEFAULT 0 CHECK (moves >= 0),
	winner      INTEGER NOT NULL DEFAULT -1 CHECK (winner >= -1),
	created_at  INTEGER NOT NULL CHECK (created_at >= 0),
	started_at  INTEGER NOT NULL DEFAULT 0 CHECK (started_at >= 0),
	finished_at INTEGER NOT NULL DEFAULT 0 CHECK (finished_at >= 0),
	deadline    INTEGER NOT NULL DEFAULT 0 CHECK (deadline >= 0),
	series_of   INTEGER REFERENCES games (id) ON DELETE SET NULL, -- NULL: not part of a series
	CHECK (state <> 2 OR finished_at > 0)
) STRICT;

-- At most one game in the lobby or playing per channel.
CREATE UNIQUE INDEX games_open_channel ON games (server, channel) WHERE state IN (0, 1);

-- Records and leaderboards: finished games of a kind, by server and time.
CREATE INDEX games_finished ON games (game, server, finished_at) WHERE state = 2;

-- The players at a table in seat order (idx 0 .. 11).
CREATE TABLE members (
	game_id   INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
	idx       INTEGER NOT NULL CHECK (idx BETWEEN 0 AND 11),
	player    TEXT    NOT NULL CHECK (length(CAST(player AS BLOB)) <= 63), -- '' computer
	name      TEXT    NOT NULL CHECK (length(CAST(name AS BLOB)) <= 63),
	policy    TEXT    NOT NULL DEFAULT '' CHECK (length(CAST(policy AS BLOB)) <= 15),
	strikes   INTEGER NOT NULL DEFAULT 0 CHECK (strikes >= 0),
	autopilot INTEGER NOT NULL DEFAULT 0 CHECK (autopilot IN (0, 1)),
	place     INTEGER NOT NULL DEFAULT -1 CHECK (place >= -1),
	cthulhu   INTEGER NOT NULL DEFAULT 0 CHECK (cthulhu IN (0, 1)),
	CHECK (player <> '' OR policy <> ''), -- a person, or a computer with a policy
	PRIMARY KEY (game_id, idx)
) STRICT, WITHOUT ROWID;

-- The event log of a game, the source of truth a game can be replayed from.
CREATE TABLE events (
	game_id INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
	seq     INTEGER NOT NULL CHECK (seq >= 1),
	at      INTEGER NOT NULL CHECK (at >= 0),
	kind    TEXT    NOT NULL CHECK (length(CAST(kind AS BLOB)) BETWEEN 1 AND 15),
	actor   INTEGER NOT NULL DEFAULT -1 CHECK (actor >= -1),
	value   INTEGER NOT NULL DEFAULT -1 CHECK (value >= -1),
	detail  TEXT    NOT NULL DEFAULT '' CHECK (length(CAST(detail AS BLOB)) <= 127),
	PRIMARY KEY (game_id, seq)
) STRICT, WITHOUT ROWID;

-- Each game's log counts 1, 2, 3 ... without gaps or repeats.
CREATE TRIGGER events_seq BEFORE INSERT ON events
WHEN NEW.seq IS NOT (SELECT coalesce(max(seq), 0) + 1 FROM events WHERE game_id = NEW.game_id)
BEGIN
	SELECT RAISE(ABORT, 'event seq must be one more than the game''s last');
END;

-- The log is append-only; rows go only with their game (ON DELETE CASCADE).
CREATE TRIGGER events_append_only BEFORE UPDATE ON events
BEGIN
	SELECT RAISE(ABORT, 'events are append-only');
END;
