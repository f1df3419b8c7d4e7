#include "rlyeh/records.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rlyeh/i18n.h"
#include "rlyeh/play.h"
#include "rlyeh/rating.h"

#define DAY_MS    (24LL * 3600 * 1000)
#define ALL_SCOPE "" /* store_period.scope of all servers */

/* ---- calendar periods (UTC, proleptic Gregorian) ---- */

/* Days since 1970-01-01 of year y, month m (1..12), day d. */
static int64_t days_from_civil(int64_t y, int m, int d)
{
	int64_t era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

/* The year and month (1..12) of day z since 1970-01-01. */
static void civil_from_days(int64_t z, int64_t *y, int *m)
{
	int64_t era, doe, yoe, doy, mp;

	z += 719468;
	era = (z >= 0 ? z : z - 146096) / 146097;
	doe = z - era * 146097;
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	*m = (int)(mp < 10 ? mp + 3 : mp - 9);
	*y = yoe + era * 400 + (*m <= 2);
}

void records_period(int span, int64_t t, int64_t *start, int64_t *end)
{
	int64_t day = t >= 0 ? t / DAY_MS : -((-t + DAY_MS - 1) / DAY_MS), y, s, e;
	int m;

	civil_from_days(day, &y, &m);
	switch (span) {
	case RECORDS_YEAR:
		s = days_from_civil(y, 1, 1);
		e = days_from_civil(y + 1, 1, 1);
		break;
	case RECORDS_MONTH:
		s = days_from_civil(y, m, 1);
		e = m == 12 ? days_from_civil(y + 1, 1, 1) : days_from_civil(y, m + 1, 1);
		break;
	case RECORDS_WEEK: /* 1970-01-01 was a Thursday */
		s = day - ((day % 7 + 7 + 3) % 7);
		e = s + 7;
		break;
	default:
		*start = 0;
		*end = INT64_MAX;
		return;
	}
	*start = s < 0 ? 0 : s * DAY_MS;
	*end = e * DAY_MS;
}

/* ---- players in memory ---- */

static uint64_t id_hash(const char *id)
{
	return text_hash(0xcbf29ce484222325ULL, id);
}

/* Rebuilds r's index for nslot slots; -1 when memory is short (r keeps
 * its old index). */
static int reindex(struct records *r, int nslot)
{
	int *slot = calloc((size_t)nslot, sizeof(*slot));

	if (!slot)
		return -1;
	for (int i = 0; i < r->n; i++) {
		size_t h = (size_t)(id_hash(r->p[i].id) & (uint64_t)(nslot - 1));
		while (slot[h])
			h = (h + 1) & (size_t)(nslot - 1);
		slot[h] = i + 1;
	}
	free(r->slot);
	r->slot = slot;
	r->nslot = nslot;
	return 0;
}

/* Returns the player with id `id`, adding it when new (mu 25, sigma 25/3,
 * no games) and taking `name` as its name; NULL when memory is short. */
static struct records_player *player(struct records *r, const char *id, const char *name)
{
	struct records_player *p;
	size_t h;

	if ((r->n + 1) * 2 > r->nslot) {
		int nslot = r->nslot ? r->nslot : 64;
		while (nslot < (r->n + 1) * 2)
			nslot *= 2;
		if (reindex(r, nslot))
			return NULL;
	}
	h = (size_t)(id_hash(id) & (uint64_t)(r->nslot - 1));
	for (; r->slot[h]; h = (h + 1) & (size_t)(r->nslot - 1)) {
		p = &r->p[r->slot[h] - 1];
		if (strcmp(p->id, id) == 0) {
			text_copy(p->name, sizeof(p->name), name);
			return p;
		}
	}
	if (r->n == r->cap) {
		int cap = r->cap ? r->cap * 2 : 32;
		struct records_player *bigger = realloc(r->p, (size_t)cap * sizeof(*bigger));
		if (!bigger)
			return NULL;
		r->p = bigger;
		r->cap = cap;
	}
	p = &r->p[r->n++];
	r->slot[h] = r->n;
	memset(p, 0, sizeof(*p));
	text_copy(p->id, sizeof(p->id), id);
	text_copy(p->name, sizeof(p->name), name);
	p->mu = RATING_MU;
	p->sigma = RATING_SIGMA;
	return p;
}

/* Adds one finished game to the records: the one step that the replay,
 * the update at a game's end and the build all take. */
static int add_result(void *ctx, const struct store_result *res)
{
	struct records *r = ctx;
	struct records_player *who[STORE_MEMBERS_MAX];
	struct rating rt[STORE_MEMBERS_MAX];
	int rank[STORE_MEMBERS_MAX], n = 0, human_won = 0;

	for (int i = 0; i < res->nmembers && i < STORE_MEMBERS_MAX; i++) {
		const struct store_member *m = &res->members[i];
		if (!m->player[0])
			continue;
		who[n] = player(r, m->player, m->name);
		if (!who[n])
			return -1;
		who[n]->games++;
		who[n]->wins += m->place == 0;
		who[n]->cthulhu += m->cthulhu;
		human_won |= m->place == 0;
		rank[n] = m->place == 0 ? 0 : 1;
		n++;
	}
	if (n < 2)
		return 0;
	for (int i = 0; i < n; i++) {
		rt[i].mu = who[i]->mu;
		rt[i].sigma = who[i]->sigma;
		if (!human_won)
			rank[i] = 0;
	}
	if (rating_update(rt, rank, n) == 0) {
		for (int i = 0; i < n; i++) {
			who[i]->mu = rt[i].mu;
			who[i]->sigma = rt[i].sigma;
		}
	}
	return 0;
}

int records_build(struct store *st, const char *game, const char *server, int64_t since,
                  int64_t until, struct records *r)
{
	memset(r, 0, sizeof(*r));
	if (store_results(st, game, server, since, until, add_result, r)) {
		records_free(r);
		return -1;
	}
	return 0;
}

void records_free(struct records *r)
{
	free(r->p);
	free(r->slot);
	memset(r, 0, sizeof(*r));
}

static double ordinal(const struct records_player *p)
{
	return p->mu - 3 * p->sigma;
}

/* Rank order of two players whose `ranked` is set. */
static int compare(const void *a, const void *b)
{
	const struct records_player *x = a, *y = b;
	int rx = x->ranked, ry = y->ranked;
	double ox = ordinal(x), oy = ordinal(y);

	if (rx != ry)
		return ry - rx;
	if (rx && ox != oy)
		return ox < oy ? 1 : -1;
	if (x->games != y->games)
		return y->games - x->games;
	return strcmp(x->id, y->id);
}

void records_sort(struct records *r, int min_games)
{
	for (int i = 0; i < r->n; i++)
		r->p[i].ranked = r->p[i].games >= min_games;
	if (r->n > 1)
		qsort(r->p, (size_t)r->n, sizeof(r->p[0]), compare);
	free(r->slot); /* the order changed: indexed again when needed */
	r->slot = NULL;
	r->nslot = 0;
}

static int lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c;
}

void records_name_key(const char *name, char key[STORE_NAME_MAX])
{
	size_t n = 0;

	for (; n + 1 < STORE_NAME_MAX; name++) {
		if (text_is_escape(name))
			name++;
		if (!*name)
			break;
		key[n++] = (char)lower((unsigned char)*name);
	}
	key[n] = '\0';
}

/* ---- rows in the store ---- */

static void to_row(const struct records_player *p, struct store_rating *row)
{
	memset(row, 0, sizeof(*row));
	text_copy(row->player, sizeof(row->player), p->id);
	text_copy(row->name, sizeof(row->name), p->name);
	records_name_key(p->name, row->name_key);
	row->mu = p->mu;
	row->sigma = p->sigma;
	row->ordinal = ordinal(p);
	row->games = p->games;
	row->wins = p->wins;
	row->cthulhu = p->cthulhu;
}

static void from_row(const struct store_rating *row, struct records_player *p)
{
	memset(p, 0, sizeof(*p));
	text_copy(p->id, sizeof(p->id), row->player);
	text_copy(p->name, sizeof(p->name), row->name);
	p->mu = row->mu;
	p->sigma = row->sigma;
	p->games = row->games;
	p->wins = row->wins;
	p->cthulhu = row->cthulhu;
}

/* Writes every player of r as a row of period p. */
static int put_all(struct store *st, const struct store_period *p, const struct records *r)
{
	struct store_rating row;

	for (int i = 0; i < r->n; i++) {
		to_row(&r->p[i], &row);
		if (store_rating_put(st, p, &row, NULL))
			return -1;
	}
	return 0;
}

/* The rows of one period w[0..n) (their players' keys, as read) with game
 * res added: w[i].r as the game leaves them. */
static int period_end(struct store_rating_write *w, int n, const int *member,
                      const struct store_member *m, const struct store_result *res)
{
	struct records r = { 0 };
	int rc = 0;

	for (int i = 0; i < n && rc == 0; i++) {
		struct records_player *x = player(&r, w[i].r.player, m[member[i]].name);
		if (!x || x != &r.p[i])
			rc = -1;
		else if (w[i].had)
			from_row(&w[i].old, x);
	}
	if (rc == 0 && (add_result(&r, res) || r.n != n))
		rc = -1;
	for (int i = 0; i < n && rc == 0; i++)
		to_row(&r.p[i], &w[i].r);
	records_free(&r);
	return rc;
}

int records_game_end(struct store *st, const struct store_game *g, const struct store_member *m,
                     int nm)
{
	struct store_result res = { g->id, g->finished_at, g->server, nm, m, g->game };
	const char *scopes[2] = { g->server, ALL_SCOPE };
	int pending = store_ratings_pending(st), n = 0, rc = 0;
	int member[STORE_RATING_WRITES_MAX], first[2 * RECORDS_SPANS + 1];
	struct store_rating_write *w;

	if (pending)
		return pending < 0 ? -1 : 0;
	if (store_game_rate(st, g->id))
		return -1;
	if (!(w = calloc(STORE_RATING_WRITES_MAX, sizeof(*w))))
		return -1;
	/* The keys: every human member once in every period. */
	for (int span = 0; span < RECORDS_SPANS; span++) {
		int64_t starts, end;
		records_period(span, g->finished_at, &starts, &end);
		for (int k = 0; k < 2; k++) {
			int q = 2 * span + k;
			first[q] = n;
			for (int i = 0; i < nm && i < STORE_MEMBERS_MAX; i++) {
				int dup = 0;
				if (!m[i].player[0])
					continue;
				for (int j = first[q]; j < n && !dup; j++)
					dup = strcmp(w[j].r.player, m[i].player) == 0;
				if (dup)
					continue;
				w[n].p = (struct store_period){ g->game, scopes[k], span, starts };
				text_copy(w[n].r.player, sizeof(w[n].r.player), m[i].player);
				member[n++] = i;
			}
		}
	}
	first[2 * RECORDS_SPANS] = n;
	/* The players' rows as the game found them, then the game. */
	if (store_ratings_read(st, w, n))
		rc = -1;
	for (int q = 0; q < 2 * RECORDS_SPANS && rc == 0; q++)
		rc = period_end(w + first[q], first[q + 1] - first[q], member + first[q], m, &res);
	if (rc == 0 && store_ratings_write(st, w, n))
		rc = -1;
	free(w);
	return rc;
}

/* ---- building the rows from every finished game ---- */

/* Interned strings: a string's number is its place in `off`. */
struct strings {
	char *buf;
	size_t len, cap;
	size_t *off;
	int n, cap_off;
	int *slot;
	int nslot;
};

/* The number of s in t, adding it when new; -1 when memory is short. */
static int intern(struct strings *t, const char *s)
{
	size_t n = strlen(s) + 1, h;

	if ((t->n + 1) * 2 > t->nslot) {
		int nslot = t->nslot ? t->nslot * 2 : 1024;
		int *slot = calloc((size_t)nslot, sizeof(*slot));
		if (!slot)
			return -1;
		for (int i = 0; i < t->n; i++) {
			h = (size_t)(id_hash(t->buf + t->off[i]) & (uint64_t)(nslot - 1));
			while (slot[h])
				h = (h + 1) & (size_t)(nslot - 1);
			slot[h] = i + 1;
		}
		free(t->slot);
		t->slot = slot;
		t->nslot = nslot;
	}
	h = (size_t)(id_hash(s) & (uint64_t)(t->nslot - 1));
	for (; t->slot[h]; h = (h + 1) & (size_t)(t->nslot - 1))
		if (strcmp(t->buf + t->off[t->slot[h] - 1], s) == 0)
			return t->slot[h] - 1;
	if (t->len + n > t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 65536;
		char *bigger;
		while (cap < t->len + n)
			cap *= 2;
		if (!(bigger = realloc(t->buf, cap)))
			return -1;
		t->buf = bigger;
		t->cap = cap;
	}
	if (t->n == t->cap_off) {
		int cap = t->cap_off ? t->cap_off * 2 : 1024;
		size_t *bigger = realloc(t->off, (size_t)cap * sizeof(*bigger));
		if (!bigger)
			return -1;
		t->off = bigger;
		t->cap_off = cap;
	}
	memcpy(t->buf + t->len, s, n);
	t->off[t->n] = t->len;
	t->len += n;
	t->slot[h] = t->n + 1;
	return t->n++;
}

static const char *string_of(const struct strings *t, int i)
{
	return t->buf + t->off[i];
}

/* A human member of a loaded game. */
struct seat {
	int player, name;
	signed char place, cthulhu;
};

/* A finished game, loaded: its humans are seats[first .. first + n - 1]. */
struct ended {
	int64_t finished_at;
	int game, server; /* strings */
	int first, n;
};

/* Every rated game in rating order, with the scopes' ledgers of one
 * period: book[kind * nscopes + scope], scope 0 all servers, s + 1
 * server s. */
struct build {
	struct strings kinds, servers, str;
	struct ended *g;
	int ng, capg;
	struct seat *seat;
	int nseat, capseat;
	int oom;
	struct records *book;
	int nbooks;
	int *used; /* books with players in this period */
	int nused;
};

static int load_one(void *ctx, const struct store_result *res)
{
	struct build *b = ctx;
	struct ended *e;

	if (b->ng == b->capg) {
		int cap = b->capg ? b->capg * 2 : 4096;
		struct ended *bigger = realloc(b->g, (size_t)cap * sizeof(*bigger));
		if (!bigger)
			return b->oom = 1, -1;
		b->g = bigger;
		b->capg = cap;
	}
	if (b->nseat + res->nmembers > b->capseat) {
		int cap = b->capseat ? b->capseat * 2 : 16384;
		struct seat *bigger = realloc(b->seat, (size_t)cap * sizeof(*bigger));
		if (!bigger)
			return b->oom = 1, -1;
		b->seat = bigger;
		b->capseat = cap;
	}
	e = &b->g[b->ng];
	e->finished_at = res->finished_at;
	e->game = intern(&b->kinds, res->game);
	e->server = intern(&b->servers, res->server);
	e->first = b->nseat;
	e->n = res->nmembers;
	if (e->game < 0 || e->server < 0)
		return b->oom = 1, -1;
	for (int i = 0; i < res->nmembers; i++) {
		struct seat *s = &b->seat[b->nseat + i];
		s->player = intern(&b->str, res->members[i].player);
		s->name = intern(&b->str, res->members[i].name);
		s->place = (signed char)(res->members[i].place > 0 ? 1 : res->members[i].place);
		s->cthulhu = (signed char)res->members[i].cthulhu;
		if (s->player < 0 || s->name < 0)
			return b->oom = 1, -1;
	}
	b->nseat += res->nmembers;
	b->ng++;
	return 0;
}

/* Games by period start, then in rating order (their index). */
struct ordered {
	int64_t starts;
	int i;
};

static int by_period(const void *a, const void *b)
{
	const struct ordered *x = a, *y = b;

	if (x->starts != y->starts)
		return x->starts < y->starts ? -1 : 1;
	return (x->i > y->i) - (x->i < y->i);
}

static int by_id(const void *a, const void *b)
{
	return strcmp(((const struct records_player *)a)->id,
	              ((const struct records_player *)b)->id);
}

/* Writes the books used in the period (span, starts), each in the rows'
 * key order, and empties them. */
static int flush_books(struct store *st, struct build *b, int span, int64_t starts)
{
	int nscopes = b->servers.n + 1, rc = 0;

	for (int u = 0; u < b->nused; u++) {
		int k = b->used[u];
		struct store_period p = { string_of(&b->kinds, k / nscopes),
			                  k % nscopes ? string_of(&b->servers, k % nscopes - 1)
			                              : ALL_SCOPE,
			                  span, starts };
		if (b->book[k].n > 1)
			qsort(b->book[k].p, (size_t)b->book[k].n, sizeof(b->book[k].p[0]), by_id);
		if (rc == 0 && put_all(st, &p, &b->book[k]))
			rc = -1;
		records_free(&b->book[k]);
	}
	b->nused = 0;
	return rc;
}

/* Adds game e to the book k, marking it used. */
static int book_add(struct build *b, int k, const struct store_result *res)
{
	if (b->book[k].n == 0)
		b->used[b->nused++] = k;
	return add_result(&b->book[k], res);
}

/* Rates every loaded game in every period and scope, writing the rows. */
static int build_rows(struct store *st, struct build *b)
{
	int nscopes = b->servers.n + 1, rc = 0;
	struct ordered *o = malloc((size_t)(b->ng ? b->ng : 1) * sizeof(*o));

	b->nbooks = nscopes * b->kinds.n;
	b->book = calloc((size_t)(b->nbooks ? b->nbooks : 1), sizeof(*b->book));
	b->used = malloc((size_t)(b->nbooks ? b->nbooks : 1) * sizeof(*b->used));
	if (!o || !b->book || !b->used) {
		free(o);
		return -1;
	}
	for (int span = 0; span < RECORDS_SPANS && rc == 0; span++) {
		for (int i = 0; i < b->ng; i++) {
			int64_t end;
			records_period(span, b->g[i].finished_at, &o[i].starts, &end);
			o[i].i = i;
		}
		qsort(o, (size_t)b->ng, sizeof(*o), by_period);
		for (int j = 0; j < b->ng && rc == 0; j++) {
			const struct ended *e = &b->g[o[j].i];
			struct store_member m[STORE_MEMBERS_MAX];
			struct store_result res = { 0,
				                    e->finished_at,
				                    string_of(&b->servers, e->server),
				                    e->n,
				                    m,
				                    string_of(&b->kinds, e->game) };
			if (j > 0 && o[j].starts != o[j - 1].starts &&
			    flush_books(st, b, span, o[j - 1].starts))
				rc = -1;
			for (int i = 0; i < e->n; i++) {
				const struct seat *s = &b->seat[e->first + i];
				memset(&m[i], 0, sizeof(m[i]));
				text_copy(m[i].player, sizeof(m[i].player),
				          string_of(&b->str, s->player));
				text_copy(m[i].name, sizeof(m[i].name),
				          string_of(&b->str, s->name));
				m[i].place = s->place;
				m[i].cthulhu = s->cthulhu;
			}
			if (rc == 0 && (book_add(b, e->game * nscopes + e->server + 1, &res) ||
			                book_add(b, e->game * nscopes, &res)))
				rc = -1;
		}
		if (rc == 0 && b->ng > 0 && flush_books(st, b, span, o[b->ng - 1].starts))
			rc = -1;
	}
	for (int u = 0; u < b->nused; u++)
		records_free(&b->book[b->used[u]]);
	free(o);
	return rc;
}

static void strings_free(struct strings *t)
{
	free(t->buf);
	free(t->off);
	free(t->slot);
}

static void build_free(struct build *b)
{
	strings_free(&b->kinds);
	strings_free(&b->servers);
	strings_free(&b->str);
	free(b->g);
	free(b->seat);
	free(b->book);
	free(b->used);
}

int records_prepare(struct store *st)
{
	struct build b;
	int pending = store_ratings_pending(st);

	if (pending <= 0)
		return pending;
	memset(&b, 0, sizeof(b));
	if (store_cache_bulk(st, 1) || store_begin(st)) {
		store_cache_bulk(st, 0);
		return -1;
	}
	if (store_games_rate_all(st) || store_ratings_clear(st) ||
	    store_results_rated(st, load_one, &b) || build_rows(st, &b) ||
	    store_ratings_built(st) || store_commit(st)) {
		build_free(&b);
		store_rollback(st);
		store_cache_bulk(st, 0);
		return -1;
	}
	build_free(&b);
	return store_cache_bulk(st, 0);
}

/* ---- answers ---- */

/* One player's line: games, wins, rate, and Cthulhu losses in a game where
 * Cthulhu can win. */
static void stat_line(struct text *out, int lang, const struct records_player *p, int nobody_wins)
{
	char games[16], wins[16], rate[16], lost[16];

	snprintf(games, sizeof(games), "%d", p->games);
	snprintf(wins, sizeof(wins), "%d", p->wins);
	snprintf(rate, sizeof(rate), "%.0f%%", p->games ? 100.0 * p->wins / p->games : 0.0);
	snprintf(lost, sizeof(lost), "%d", p->cthulhu);
	if (nobody_wins)
		i18n_add(out, lang, S_REC_LINE, games, wins, rate, lost, NULL);
	else
		i18n_add(out, lang, S_REC_LINE_PLAIN, games, wins, rate, NULL);
}

static void rating_text(char *buf, size_t cap, const struct records_player *p)
{
	snprintf(buf, cap, "%.1f (\xce\xbc %.1f, \xcf\x83 %.2f)", ordinal(p), p->mu, p->sigma);
}

/* The name to show for `who` (a player id or a name) with no finished
 * game: the asker's own name, a member's of the table, the players
 * table's, else `who` as given. */
static void known_name(struct store *st, const struct bot_req *req, const struct store_member *m,
                       int nm, const char *who, char name[STORE_NAME_MAX])
{
	if (strcmp(who, req->user) == 0 && req->name && req->name[0]) {
		text_copy(name, STORE_NAME_MAX, req->name);
		return;
	}
	for (int i = 0; i < nm; i++)
		if (m[i].player[0] && strcmp(m[i].player, who) == 0) {
			text_copy(name, STORE_NAME_MAX, m[i].name);
			return;
		}
	if (store_player_get(st, who, name, NULL) == 0 && name[0])
		return;
	text_copy(name, STORE_NAME_MAX, who);
}

/* What an answer shows, from either source: the leaderboard's first
 * ranked players and how many are not ranked, or the player /stats found
 * (found 0: none) and their rank (0: not ranked). */
struct shown {
	struct records_player top[RECORDS_TOP];
	int ntop, unranked;
	struct records_player p;
	int found, rank;
};

/* The answer's content from a replay of the period's games. */
static int from_rebuild(struct store *st, const struct store_period *p, int64_t end, int min_games,
                        const char *who, struct shown *s)
{
	struct records r;

	if (records_build(st, p->game, p->scope[0] ? p->scope : NULL, p->starts, end, &r))
		return -1;
	records_sort(&r, min_games);
	for (int i = 0; i < r.n; i++) {
		if (r.p[i].ranked && s->ntop < RECORDS_TOP)
			s->top[s->ntop++] = r.p[i];
		s->unranked += !r.p[i].ranked;
	}
	for (int i = 0; who && i < r.n && !s->found; i++) {
		if (strcmp(r.p[i].id, who) == 0 || text_name_is(r.p[i].name, who)) {
			s->found = 1;
			s->p = r.p[i];
			for (int j = 0; j <= i; j++)
				s->rank += r.p[j].ranked;
			if (!r.p[i].ranked)
				s->rank = 0;
		}
	}
	records_free(&r);
	return 0;
}

static int take_top(void *ctx, const struct store_rating *row)
{
	struct shown *s = ctx;

	from_row(row, &s->top[s->ntop]);
	s->top[s->ntop++].ranked = 1;
	return s->ntop == RECORDS_TOP;
}

/* The first row /stats asks for, in rank order. */
struct named {
	const char *who;
	struct store_rating row;
	int found;
};

static int take_named(void *ctx, const struct store_rating *row)
{
	struct named *n = ctx;

	if (strcmp(row->player, n->who) != 0 && !text_name_is(row->name, n->who))
		return 0;
	n->row = *row;
	n->found = 1;
	return 1;
}

/* The answer's content from the stored rows. */
static int from_rows(struct store *st, const struct store_period *p, int min_games, const char *who,
                     struct shown *s)
{
	if (!who) {
		if (store_ratings_top(st, p, min_games, RECORDS_TOP, take_top, s) < 0 ||
		    store_ratings_unranked(st, p, min_games, &s->unranked))
			return -1;
		return 0;
	}
	/* Longer text is no stored id, name or key (STORE_ID_MAX and
	 * STORE_NAME_MAX are both 64): nobody. */
	if (strlen(who) < STORE_NAME_MAX) {
		char key1[STORE_NAME_MAX], key2[STORE_NAME_MAX];
		struct named n;
		size_t i;
		memset(&n, 0, sizeof(n));
		n.who = who;
		records_name_key(who, key1);
		for (i = 0; who[i] && i + 1 < sizeof(key2); i++)
			key2[i] = (char)lower((unsigned char)who[i]);
		key2[i] = '\0';
		if (store_ratings_named(st, p, min_games, who, key1, key2, take_named, &n) < 0)
			return -1;
		if (n.found) {
			s->found = 1;
			from_row(&n.row, &s->p);
			s->p.ranked = s->p.games >= min_games;
			if (s->p.ranked) {
				if (store_rating_rank(st, p, min_games, &n.row, &s->rank))
					return -1;
				s->rank++;
			}
		}
	}
	return 0;
}

int records_answer(struct store *st, const struct bot_req *req, int64_t now, int min_games,
                   int lang, const char *game, const struct store_member *m, int nm,
                   enum records_source source, struct text *out)
{
	const char *who = NULL;
	int period = S_REC_ALL_TIME, span = RECORDS_ALL_TIME, nobody_wins;
	struct store_period p = { NULL, req->server ? req->server : ALL_SCOPE, 0, 0 };
	struct shown *s;
	char min[16], rating[64];
	int64_t end;

	for (int i = 0; i < req->cmd.nargs; i++) {
		const char *a = req->cmd.args[i];
		if (play_find(a))
			game = a;
		else if (strcmp(a, "all") == 0)
			p.scope = ALL_SCOPE;
		else if (strcmp(a, "week") == 0)
			period = S_REC_WEEK, span = RECORDS_WEEK;
		else if (strcmp(a, "month") == 0)
			period = S_REC_MONTH, span = RECORDS_MONTH;
		else if (strcmp(a, "year") == 0)
			period = S_REC_YEAR, span = RECORDS_YEAR;
		else if (req->cmd.kind == CMD_STATS && !who)
			who = a;
		else {
			i18n_add(out, lang, S_ERR_USAGE,
			         req->cmd.kind == CMD_STATS
			             ? "/stats [player] [game] [all] [week|month|year]"
			             : "/leaderboard [game] [all] [week|month|year]",
			         NULL);
			return 0;
		}
	}
	if (req->cmd.kind == CMD_STATS && !who)
		who = req->user;
	p.game = game;
	p.span = span;
	records_period(span, now, &p.starts, &end);
	if (!(s = calloc(1, sizeof(*s))))
		return -1;
	if (source == RECORDS_STORED && store_ratings_pending(st) != 0)
		source = RECORDS_REBUILD; /* not built yet (or not readable): replay */
	if (source == RECORDS_REBUILD ? from_rebuild(st, &p, end, min_games, who, s)
	                              : from_rows(st, &p, min_games, who, s)) {
		free(s);
		return -1;
	}
	nobody_wins = !play_find(game) || play_find(game)->nobody_wins;
	snprintf(min, sizeof(min), "%d", min_games);
	if (req->cmd.kind == CMD_LEADERBOARD) {
		i18n_add(out, lang, p.scope[0] ? S_REC_TITLE_SERVER : S_REC_TITLE_ALL,
		         i18n_get(lang, period), game, NULL);
		for (int i = 0; i < s->ntop; i++) {
			char pos[16];
			snprintf(pos, sizeof(pos), "%d", i + 1);
			rating_text(rating, sizeof(rating), &s->top[i]);
			text_add(out, "\n");
			i18n_add(out, lang, S_REC_RANK, pos, s->top[i].name, rating, NULL);
			stat_line(out, lang, &s->top[i], nobody_wins);
		}
		if (s->ntop == 0) {
			text_add(out, "\n");
			i18n_add(out, lang, S_REC_EMPTY, min, NULL);
		}
		if (s->unranked) {
			char n[16];
			snprintf(n, sizeof(n), "%d", s->unranked);
			text_add(out, "\n");
			i18n_add(out, lang, S_REC_UNRANKED, n, min, NULL);
		}
	} else if (!s->found) {
		char name[STORE_NAME_MAX];
		known_name(st, req, m, nm, who, name);
		i18n_add(out, lang, S_REC_NO_GAMES, name, NULL);
	} else {
		char pos[32];
		rating_text(rating, sizeof(rating), &s->p);
		i18n_add(out, lang, p.scope[0] ? S_REC_STATS_SERVER : S_REC_STATS_ALL, s->p.name,
		         i18n_get(lang, period), game, NULL);
		text_add(out, "\n");
		if (s->p.ranked) {
			snprintf(pos, sizeof(pos), "%d", s->rank);
			i18n_add(out, lang, S_REC_STATS_RANKED, rating, pos, NULL);
		} else {
			i18n_add(out, lang, S_REC_STATS_UNRANKED, rating, min, NULL);
		}
		stat_line(out, lang, &s->p, nobody_wins);
	}
	free(s);
	return 0;
}

int records_reply(struct store *st, const struct bot_req *req, int64_t now, int min_games, int lang,
                  const char *game, const struct store_member *m, int nm, struct text *out)
{
	return records_answer(st, req, now, min_games, lang, game, m, nm, RECORDS_STORED, out);
}
