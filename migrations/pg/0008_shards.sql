-- 0008 (PostgreSQL): who owns each gateway shard, and the shard's gateway
-- session (migrations/0008_shards.sql says what each column means).

CREATE TABLE shards (
	count      BIGINT NOT NULL CHECK (count BETWEEN 1 AND 65535),
	shard      BIGINT NOT NULL CHECK (shard >= 0 AND shard < count),
	epoch      BIGINT NOT NULL DEFAULT 0 CHECK (epoch >= 0),
	owner      TEXT   COLLATE "C" NOT NULL DEFAULT '' CHECK (octet_length(owner) <= 63),
	owned_at   BIGINT NOT NULL DEFAULT 0 CHECK (owned_at >= 0),
	session_id TEXT   COLLATE "C" NOT NULL DEFAULT '' CHECK (octet_length(session_id) <= 127),
	seq        BIGINT NOT NULL DEFAULT 0 CHECK (seq >= 0),
	resume_url TEXT   COLLATE "C" NOT NULL DEFAULT '' CHECK (octet_length(resume_url) <= 255),
	saved_at   BIGINT NOT NULL DEFAULT 0 CHECK (saved_at >= 0),
	PRIMARY KEY (count, shard)
);

CREATE TABLE interactions (
	id TEXT   COLLATE "C" NOT NULL PRIMARY KEY CHECK (octet_length(id) BETWEEN 1 AND 63),
	at BIGINT NOT NULL CHECK (at >= 0)
);

CREATE INDEX interactions_at ON interactions (at);
