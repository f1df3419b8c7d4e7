/* The PostgreSQL store: players (names, languages, notices) and settings. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libpq-fe.h>
#include <sqlite3.h>

#include "rlyeh/store.h"
#include "store_pg.h"

#include "store_pg_int.h"

int store_pg_player_put(struct store_pg *st, const char *id, const char *name, const char *lang,
                        int64_t now)
{
	struct params ps = { 0 };

	if (!id || !name) {
		store_pg_set_err(st, "put player: no %s", id ? "name" : "id");
		return -1;
	}
	if (!lang)
		lang = "";
	if (store_pg_p_id(st, &ps, 1, id, STORE_ID_MAX, "player id") ||
	    store_pg_p_cut(st, &ps, 2, name, strlen(name), STORE_NAME_MAX) ||
	    store_pg_p_id(st, &ps, 3, lang, LANG_SIZE, "language"))
		return -1;
	store_pg_p_i64(&ps, 4, now < 0 ? 0 : now);
	return store_pg_run(st, ST_PLAYER_PUT, &ps, "put player", NULL);
}

int store_pg_player_notify_put(struct store_pg *st, const char *id, const char *name, int on,
                               int64_t now)
{
	struct params ps = { 0 };

	if (!id || !name) {
		store_pg_set_err(st, "put notify: no %s", id ? "name" : "id");
		return -1;
	}
	if (store_pg_p_id(st, &ps, 1, id, STORE_ID_MAX, "player id") ||
	    store_pg_p_cut(st, &ps, 2, name, strlen(name), STORE_NAME_MAX))
		return -1;
	store_pg_p_i64(&ps, 3, on != 0);
	store_pg_p_i64(&ps, 4, now < 0 ? 0 : now);
	return store_pg_run(st, ST_NOTIFY_PUT, &ps, "put notify", NULL);
}

int store_pg_player_notify(struct store_pg *st, const char *id)
{
	struct params ps = { 0 };
	PGresult *r;
	int on = 1;

	if (!id || store_pg_p_id(st, &ps, 1, id, STORE_ID_MAX, "player id"))
		return 1;
	if (!(r = store_pg_exec(st, ST_NOTIFY_GET, &ps, "get notify")))
		return 1;
	if (PQntuples(r) == 1)
		on = store_pg_v_i64(r, 0, 0) != 0;
	PQclear(r);
	return on;
}

int store_pg_player_get(struct store_pg *st, const char *id, char name[STORE_NAME_MAX],
                        char lang[8])
{
	struct params ps = { 0 };
	PGresult *r;
	int rc = 0;

	if (!id) {
		store_pg_set_err(st, "get player: no id");
		return -1;
	}
	if (store_pg_p_id(st, &ps, 1, id, STORE_ID_MAX, "player id"))
		return -1;
	if (!(r = store_pg_exec(st, ST_PLAYER_GET, &ps, "get player")))
		return -1;
	if (PQntuples(r) == 0) {
		store_pg_set_err(st, "player %s: unknown", id);
		rc = -1;
	} else {
		if (name)
			store_pg_v_text(r, 0, 0, name, STORE_NAME_MAX);
		if (lang && store_pg_v_id(st, r, 0, 1, lang, LANG_SIZE, "language"))
			rc = -1;
	}
	PQclear(r);
	return rc;
}

int store_pg_setting_get(struct store_pg *st, const char *key, char *value, size_t cap)
{
	struct params ps = { 0 };
	PGresult *r;
	int rc = 0;

	if (store_pg_p_id(st, &ps, 1, key, 64, "setting key"))
		return -1;
	if (!(r = store_pg_exec(st, ST_SETTING_GET, &ps, "get setting")))
		return -1;
	if (PQntuples(r) == 0) {
		store_pg_set_err(st, "setting %s: unknown", key);
		rc = -1;
	} else {
		store_pg_v_text(r, 0, 0, value, cap);
	}
	PQclear(r);
	return rc;
}

int store_pg_setting_put(struct store_pg *st, const char *key, const char *value)
{
	struct params ps = { 0 };

	if (store_pg_p_id(st, &ps, 1, key, 64, "setting key") ||
	    store_pg_p_id(st, &ps, 2, value, 1024, "setting value"))
		return -1;
	return store_pg_run(st, ST_SETTING_PUT, &ps, "put setting", NULL);
}
