/* The SQLite store: players (names, languages, notices) and settings. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "powervfs.h"
#include "rlyeh/store.h"
#include "store_sqlite.h"

#include "store_sqlite_int.h"

int store_sqlite_player_put(struct store_sqlite *st, const char *id, const char *name,
                            const char *lang, int64_t now)
{
	sqlite3_stmt *s = store_sqlite_stmt_get(st, ST_PLAYER_PUT);

	if (!s)
		return -1;
	if (!id || !name) {
		store_sqlite_set_err(st, "put player: no %s", id ? "name" : "id");
		return -1;
	}
	if (!lang)
		lang = "";
	if (store_sqlite_bind_id(st, s, 1, id, STORE_ID_MAX, "player id") ||
	    store_sqlite_bind_cut(st, s, 2, name, strlen(name), STORE_NAME_MAX, "player name") ||
	    store_sqlite_bind_id(st, s, 3, lang, LANG_SIZE, "language") ||
	    sqlite3_bind_int64(s, 4, now < 0 ? 0 : now) != SQLITE_OK) {
		store_sqlite_stmt_done(s);
		return -1;
	}
	return store_sqlite_run(st, ST_PLAYER_PUT, "put player");
}

int store_sqlite_player_notify_put(struct store_sqlite *st, const char *id, const char *name,
                                   int on, int64_t now)
{
	sqlite3_stmt *s = store_sqlite_stmt_get(st, ST_NOTIFY_PUT);

	if (!s)
		return -1;
	if (!id || !name) {
		store_sqlite_set_err(st, "put notify: no %s", id ? "name" : "id");
		return -1;
	}
	if (store_sqlite_bind_id(st, s, 1, id, STORE_ID_MAX, "player id") ||
	    store_sqlite_bind_cut(st, s, 2, name, strlen(name), STORE_NAME_MAX, "player name") ||
	    sqlite3_bind_int(s, 3, on != 0) != SQLITE_OK ||
	    sqlite3_bind_int64(s, 4, now < 0 ? 0 : now) != SQLITE_OK) {
		store_sqlite_stmt_done(s);
		return -1;
	}
	return store_sqlite_run(st, ST_NOTIFY_PUT, "put notify");
}

int store_sqlite_player_notify(struct store_sqlite *st, const char *id)
{
	sqlite3_stmt *s = id ? store_sqlite_stmt_get(st, ST_NOTIFY_GET) : NULL;
	int on = 1;

	if (!s)
		return 1;
	if (store_sqlite_bind_id(st, s, 1, id, STORE_ID_MAX, "player id")) {
		store_sqlite_stmt_done(s);
		return 1;
	}
	if (sqlite3_step(s) == SQLITE_ROW)
		on = sqlite3_column_int(s, 0) != 0;
	store_sqlite_stmt_done(s);
	return on;
}

int store_sqlite_player_get(struct store_sqlite *st, const char *id, char name[STORE_NAME_MAX],
                            char lang[8])
{
	sqlite3_stmt *s = store_sqlite_stmt_get(st, ST_PLAYER_GET);
	int rc;

	if (!s)
		return -1;
	if (!id) {
		store_sqlite_set_err(st, "get player: no id");
		return -1;
	}
	if (store_sqlite_bind_id(st, s, 1, id, STORE_ID_MAX, "player id")) {
		store_sqlite_stmt_done(s);
		return -1;
	}
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		if (name)
			store_sqlite_col_text(s, 0, name, STORE_NAME_MAX);
		if (lang && store_sqlite_col_id(st, s, 1, lang, LANG_SIZE, "language"))
			rc = SQLITE_ERROR;
	} else if (rc == SQLITE_DONE) {
		store_sqlite_set_err(st, "player %s: unknown", id);
	} else {
		store_sqlite_set_db_err(st, "get player");
	}
	store_sqlite_stmt_done(s);
	return rc == SQLITE_ROW ? 0 : -1;
}

int store_sqlite_setting_get(struct store_sqlite *st, const char *key, char *value, size_t cap)
{
	sqlite3_stmt *s = store_sqlite_stmt_get(st, ST_SETTING_GET);
	int rc;

	if (!s)
		return -1;
	if (store_sqlite_bind_id(st, s, 1, key, 64, "setting key")) {
		store_sqlite_stmt_done(s);
		return -1;
	}
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		store_sqlite_col_text(s, 0, value, cap);
	else if (rc == SQLITE_DONE)
		store_sqlite_set_err(st, "setting %s: unknown", key);
	else
		store_sqlite_set_db_err(st, "get setting");
	store_sqlite_stmt_done(s);
	return rc == SQLITE_ROW ? 0 : -1;
}

int store_sqlite_setting_put(struct store_sqlite *st, const char *key, const char *value)
{
	sqlite3_stmt *s = store_sqlite_stmt_get(st, ST_SETTING_PUT);

	if (!s)
		return -1;
	if (store_sqlite_bind_id(st, s, 1, key, 64, "setting key") ||
	    store_sqlite_bind_id(st, s, 2, value, 1024, "setting value")) {
		store_sqlite_stmt_done(s);
		return -1;
	}
	return store_sqlite_run(st, ST_SETTING_PUT, "put setting");
}
