-- 0008: who owns each gateway shard, and the shard's gateway session.
--
-- One row per shard (count, shard): shard `shard` of `count` receives the
-- servers with (server id >> 22) % count = shard.
--
-- epoch counts the times the shard was taken: a process that takes it
-- (holding PostgreSQL's advisory lock for it) adds one and keeps the value;
-- each of its game writes checks, in the same transaction, that epoch is
-- still its own (store_shard_fence), so a process that lost the shard
-- writes nothing more. owner names the process (host:pid), owned_at is
-- when it took the shard (ms).
--
-- session_id, seq and resume_url are the shard's Discord gateway session,
-- so that the next owner can RESUME it; saved_at is when they were written
-- (ms). '' and 0 when there is none.

CREATE TABLE shards (
	count      INTEGER NOT NULL CHECK (count BETWEEN 1 AND 65535),
	shard      INTEGER NOT NULL CHECK (shard >= 0 AND shard < count),
	epoch      INTEGER NOT NULL DEFAULT 0 CHECK (epoch >= 0),
	owner      TEXT    NOT NULL DEFAULT '' CHECK (length(CAST(owner AS BLOB)) <= 63),
	owned_at   INTEGER NOT NULL DEFAULT 0 CHECK (owned_at >= 0),
	session_id TEXT    NOT NULL DEFAULT '' CHECK (length(CAST(session_id AS BLOB)) <= 127),
	seq        INTEGER NOT NULL DEFAULT 0 CHECK (seq >= 0),
	resume_url TEXT    NOT NULL DEFAULT '' CHECK (length(CAST(resume_url AS BLOB)) <= 255),
	saved_at   INTEGER NOT NULL DEFAULT 0 CHECK (saved_at >= 0),
	PRIMARY KEY (count, shard)
) WITHOUT ROWID;

-- interactions: the Discord interactions already taken up by some process
-- (with several processes on one database), so that the next owner of a
-- shard, RESUMEing its session and being sent again what came after the
-- saved seq, does not answer one twice. Written in the transaction of the
-- command's own writes; at is when (ms), for forgetting old ones.

CREATE TABLE interactions (
	id TEXT    NOT NULL PRIMARY KEY CHECK (length(CAST(id AS BLOB)) BETWEEN 1 AND 63),
	at INTEGER NOT NULL CHECK (at >= 0)
) WITHOUT ROWID;

CREATE INDEX interactions_at ON interactions (at);
