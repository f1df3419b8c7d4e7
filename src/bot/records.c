#include "rlyeh/records.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rlyeh/i18n.h"
#include "rlyeh/play.h"
#include "rlyeh/rating.h"

#define DAY_MS (24LL * 3600 * 1000)

/* Returns the player with id `id`, adding it when new; NULL when memory is
 * short. */
static struct records_player *player(struct records *r, const char *id, const char *name)
{
	struct records_player *p;

	for (int i = 0; i < r->n; i++) {
		if (strcmp(r->p[i].id, id) == 0) {
			text_copy(r->p[i].name, sizeof(r->p[i].name), name);
			return &r->p[i];
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
	memset(p, 0, sizeof(*p));
	text_copy(p->id, sizeof(p->id), id);
	text_copy(p->name, sizeof(p->name), name);
	p->mu = RATING_MU;
	p->sigma = RATING_SIGMA;
	return p;
}

/* Adds one finished game to the records. */
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
	memset(r, 0, sizeof(*r));
}

static int compare(const void *a, const void *b)
{
	const struct records_player *x = a, *y = b;
	int rx = x->ranked, ry = y->ranked;
	double ox = x->mu - 3 * x->sigma, oy = y->mu - 3 * y->sigma;

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
}

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
	snprintf(buf, cap, "%.1f (\xce\xbc %.1f, \xcf\x83 %.2f)", p->mu - 3 * p->sigma, p->mu,
	         p->sigma);
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

int records_reply(struct store *st, const struct bot_req *req, int64_t now, int min_games, int lang,
                  const char *game, const struct store_member *m, int nm, struct text *out)
{
	const char *server = req->server, *who = NULL;
	int period = S_REC_ALL_TIME;
	int64_t since = 0;
	struct records r;
	char min[16], rating[64];
	int nobody_wins;

	for (int i = 0; i < req->cmd.nargs; i++) {
		const char *a = req->cmd.args[i];
		if (play_find(a))
			game = a;
		else if (strcmp(a, "all") == 0)
			server = NULL;
		else if (strcmp(a, "week") == 0)
			period = S_REC_WEEK, since = now - 7 * DAY_MS;
		else if (strcmp(a, "month") == 0)
			period = S_REC_MONTH, since = now - 30 * DAY_MS;
		else if (strcmp(a, "year") == 0)
			period = S_REC_YEAR, since = now - 365 * DAY_MS;
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
	if (records_build(st, game, server, since, 0, &r))
		return -1;
	nobody_wins = !play_find(game) || play_find(game)->nobody_wins;
	records_sort(&r, min_games);
	snprintf(min, sizeof(min), "%d", min_games);
	if (req->cmd.kind == CMD_LEADERBOARD) {
		int shown = 0, unranked = 0;
		i18n_add(out, lang, server ? S_REC_TITLE_SERVER : S_REC_TITLE_ALL,
		         i18n_get(lang, period), game, NULL);
		for (int i = 0; i < r.n; i++) {
			char pos[16];
			if (r.p[i].games < min_games) {
				unranked++;
				continue;
			}
			if (shown == RECORDS_TOP)
				continue;
			snprintf(pos, sizeof(pos), "%d", ++shown);
			rating_text(rating, sizeof(rating), &r.p[i]);
			text_add(out, "\n");
			i18n_add(out, lang, S_REC_RANK, pos, r.p[i].name, rating, NULL);
			stat_line(out, lang, &r.p[i], nobody_wins);
		}
		if (shown == 0) {
			text_add(out, "\n");
			i18n_add(out, lang, S_REC_EMPTY, min, NULL);
		}
		if (unranked) {
			char n[16];
			snprintf(n, sizeof(n), "%d", unranked);
			text_add(out, "\n");
			i18n_add(out, lang, S_REC_UNRANKED, n, min, NULL);
		}
	} else {
		int found = -1, rank = 0;
		if (!who)
			who = req->user;
		for (int i = 0; i < r.n && found < 0; i++)
			if (strcmp(r.p[i].id, who) == 0 || text_name_is(r.p[i].name, who))
				found = i;
		if (found < 0) {
			char name[STORE_NAME_MAX];
			known_name(st, req, m, nm, who, name);
			i18n_add(out, lang, S_REC_NO_GAMES, name, NULL);
		} else {
			const struct records_player *p = &r.p[found];
			char pos[32];
			for (int i = 0; i <= found; i++)
				rank += r.p[i].games >= min_games;
			rating_text(rating, sizeof(rating), p);
			i18n_add(out, lang, server ? S_REC_STATS_SERVER : S_REC_STATS_ALL, p->name,
			         i18n_get(lang, period), game, NULL);
			text_add(out, "\n");
			if (p->games >= min_games) {
				snprintf(pos, sizeof(pos), "%d", rank);
				i18n_add(out, lang, S_REC_STATS_RANKED, rating, pos, NULL);
			} else {
				i18n_add(out, lang, S_REC_STATS_UNRANKED, rating, min, NULL);
			}
			stat_line(out, lang, p, nobody_wins);
		}
	}
	records_free(&r);
	return 0;
}
