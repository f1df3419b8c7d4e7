-- 0001 (PostgreSQL): games, their members and their event logs.
--
-- The PostgreSQL twin of migrations/0001_tables.sql: the same tables,
-- columns, checks, indexes and triggers, so that both backends refuse and
-- keep the same things. Applied by the store inside its own transaction,
-- followed by the update of schema_version: a migration file must not open
-- or close a transaction itself, and must never be edited once released
-- (add a new NNNN_name.sql here and in migrations/ instead). The store
-- keeps the version in its own table, schema_version (one row), made
-- before the first migration.
--
-- Integers are BIGINT, text is TEXT COLLATE "C" (byte order, as SQLite
-- compares), lengths are octet_length (bytes). Unsigned 64-bit values
-- (seed, rng0..rng3) are stored as the BIGINT with the same two's
-- complement bits, as in SQLite.

-- The highest game id ever given, as SQLite's AUTOINCREMENT keeps it in
-- sqlite_sequence: a refused or rolled-back insert gives none away, and
-- ids are never reused.
CREATE TABLE game_ids (
	one  BOOLEAN NOT NULL PRIMARY KEY DEFAULT TRUE CHECK (one),
	last BIGINT  NOT NULL CHECK (last >= 0)
);

INSERT INTO game_ids (last) VALUES (0);

CREATE TABLE games (
	id          BIGINT  PRIMARY KEY, -- set by games_id below; never reused
	server      TEXT    COLLATE "C" NOT NULL CHECK (octet_length(server) BETWEEN 1 AND 63),
	channel     TEXT    COLLATE "C" NOT NULL CHECK (octet_length(channel) BETWEEN 1 AND 63),
	game        TEXT    COLLATE "C" NOT NULL CHECK (octet_length(game) BETWEEN 1 AND 15),
	per_player  BIGINT  NOT NULL DEFAULT 0 CHECK (per_player >= 0),
	lang        TEXT    COLLATE "C" NOT NULL DEFAULT '' CHECK (octet_length(lang) <= 7),
	owner       TEXT    COLLATE "C" NOT NULL DEFAULT '' CHECK (octet_length(owner) <= 63),
	state       BIGINT  NOT NULL CHECK (state IN (0, 1, 2, 3)), -- lobby, playing, finished, aborted
	seed        BIGINT  NOT NULL,
	rng0        BIGINT  NOT NULL,
	rng1        BIGINT  NOT NULL,
	rng2        BIGINT  NOT NULL,
	rng3        BIGINT  NOT NULL,
	first       BIGINT  NOT NULL DEFAULT -1 CHECK (first >= -1),
	moves       BIGINT  NOT NULL DEFAULT 0 CHECK (moves >= 0),
	winner      BIGINT  NOT NULL DEFAULT -1 CHECK (winner >= -1),
	created_at  BIGINT  NOT NULL CHECK (created_at >= 0),
	started_at  BIGINT  NOT NULL DEFAULT 0 CHECK (started_at >= 0),
	finished_at BIGINT  NOT NULL DEFAULT 0 CHECK (finished_at >= 0),
	deadline    BIGINT  NOT NULL DEFAULT 0 CHECK (deadline >= 0),
	series_of   BIGINT  REFERENCES games (id) ON DELETE SET NULL, -- NULL: not part of a series
	CHECK (state <> 2 OR finished_at > 0)
);

-- A game inserted without an id gets the next one; one inserted with its
-- id (migrate-store) moves the count past it.
CREATE FUNCTION games_id() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF NEW.id IS NULL THEN
		UPDATE game_ids SET last = last + 1 RETURNING last INTO NEW.id;
	ELSE
		UPDATE game_ids SET last = greatest(last, NEW.id);
	END IF;
	RETURN NEW;
END
$$;

CREATE TRIGGER games_id BEFORE INSERT ON games FOR EACH ROW EXECUTE FUNCTION games_id();

-- At most one game in the lobby or playing per channel.
CREATE UNIQUE INDEX games_open_channel ON games (server, channel) WHERE state IN (0, 1);

-- Records and leaderboards: finished games of a kind, by server and time.
CREATE INDEX games_finished ON games (game, server, finished_at) WHERE state = 2;

-- The open games, for the walk at start.
CREATE INDEX games_open ON games (id) WHERE state IN (0, 1);

-- The players at a table in seat order (idx 0 .. 11).
CREATE TABLE members (
	game_id   BIGINT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
	idx       BIGINT NOT NULL CHECK (idx BETWEEN 0 AND 11),
	player    TEXT   COLLATE "C" NOT NULL CHECK (octet_length(player) <= 63), -- '' computer
	name      TEXT   COLLATE "C" NOT NULL CHECK (octet_length(name) <= 63),
	policy    TEXT   COLLATE "C" NOT NULL DEFAULT '' CHECK (octet_length(policy) <= 15),
	strikes   BIGINT NOT NULL DEFAULT 0 CHECK (strikes >= 0),
	autopilot BIGINT NOT NULL DEFAULT 0 CHECK (autopilot IN (0, 1)),
	place     BIGINT NOT NULL DEFAULT -1 CHECK (place >= -1),
	cthulhu   BIGINT NOT NULL DEFAULT 0 CHECK (cthulhu IN (0, 1)),
	CHECK (player <> '' OR policy <> ''), -- a person, or a computer with a policy
	PRIMARY KEY (game_id, idx)
);

-- The event log of a game, the source of truth a game can be replayed from.
CREATE TABLE events (
	game_id BIGINT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
	seq     BIGINT NOT NULL CHECK (seq >= 1),
	at      BIGINT NOT NULL CHECK (at >= 0),
	kind    TEXT   COLLATE "C" NOT NULL CHECK (octet_length(kind) BETWEEN 1 AND 15),
	actor   BIGINT NOT NULL DEFAULT -1 CHECK (actor >= -1),
	value   BIGINT NOT NULL DEFAULT -1 CHECK (value >= -1),
	detail  TEXT   COLLATE "C" NOT NULL DEFAULT '' CHECK (octet_length(detail) <= 127),
	PRIMARY KEY (game_id, seq)
);

-- Each game's log counts 1, 2, 3 ... without gaps or repeats.
CREATE FUNCTION events_seq() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF NEW.seq IS DISTINCT FROM
	   (SELECT coalesce(max(seq), 0) + 1 FROM events WHERE game_id = NEW.game_id) THEN
		RAISE EXCEPTION 'event seq must be one more than the game''s last'
			USING ERRCODE = 'check_violation';
	END IF;
	RETURN NEW;
END
$$;

CREATE TRIGGER events_seq BEFORE INSERT ON events FOR EACH ROW EXECUTE FUNCTION events_seq();

-- The log is append-only; rows go only with their game (ON DELETE CASCADE).
CREATE FUNCTION events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	RAISE EXCEPTION 'events are append-only' USING ERRCODE = 'check_violation';
END
$$;

CREATE TRIGGER events_append_only BEFORE UPDATE ON events
FOR EACH ROW EXECUTE FUNCTION events_append_only();
