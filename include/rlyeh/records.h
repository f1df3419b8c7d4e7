/* records: the leaderboard and player statistics of finished games.
 *
 * Ranking: the Weng-Lin (OpenSkill Plackett-Luce) rating of the human players
 * of each game, oldest game first; the winner takes place 0, everyone else
 * place 1 (tied); after a Cthulhu win everyone ties. Computer players are not
 * rated (a game won by one counts as a tie of its humans), and a game with
 * fewer than two humans changes no rating. Players are ranked by mu - 3 sigma
 * once they have min_games finished games.
 *
 * Periods are calendar periods in UTC: all time, the year since 1 January,
 * the month since the 1st, the week since Monday 00:00. A period's ratings
 * start from nothing and take the games that finished in it, in the order
 * the games were rated (store.h: store_game_rate), which is the order they
 * ended in. Each scope (a server; all servers) and period has its own rows
 * in the store, updated when a game ends (records_game_end), so an answer
 * reads a few rows. records_build replays the games instead: the reference
 * the rows equal. */
#ifndef RLYEH_RECORDS_H
#define RLYEH_RECORDS_H

#include <stdint.h>

#include "rlyeh/bot.h"
#include "rlyeh/store.h"
#include "rlyeh/text.h"

#define RECORDS_TOP 10

/* Periods (store_period.span). */
enum records_span {
	RECORDS_ALL_TIME = 0,
	RECORDS_YEAR = 1,
	RECORDS_MONTH = 2,
	RECORDS_WEEK = 3,
	RECORDS_SPANS = 4,
};

/* Where an answer comes from. */
enum records_source {
	RECORDS_STORED,  /* the rows kept as games end (the replay while they are not built) */
	RECORDS_REBUILD, /* a replay of the period's games (records_build) */
};

struct records_player {
	char id[STORE_ID_MAX];
	char name[STORE_NAME_MAX];
	double mu, sigma;
	int games, wins, cthulhu;
	int ranked; /* set by records_sort */
};

struct records {
	struct records_player *p;
	int n, cap;
	int *slot; /* open-addressing index of p by id: i + 1, 0 free */
	int nslot;
};

/* Sets [*start, *end) to the UTC calendar period of kind `span` holding
 * time t (ms since the epoch): all time is [0, INT64_MAX); a start before
 * the epoch is given as 0. */
void records_period(int span, int64_t t, int64_t *start, int64_t *end);

/* Gathers the records of game kind `game` on `server` (NULL: all servers)
 * for games finished in [since, until) (0: unbounded), replaying them
 * oldest first. Returns 0, or -1 on a store error or short memory (r then
 * empty). Free with records_free. */
int records_build(struct store *st, const char *game, const char *server, int64_t since,
                  int64_t until, struct records *r);

void records_free(struct records *r);

/* Sorts players by rank: the ranked (>= min_games) by mu - 3 sigma, then
 * the unranked by games; ties by id. */
void records_sort(struct records *r, int min_games);

/* Writes name's lookup key into key[STORE_NAME_MAX]: lower case (ASCII),
 * without the backslashes of Markdown escapes, as text_name_is compares. */
void records_name_key(const char *name, char key[STORE_NAME_MAX]);

/* Rates finished game `g` with members m[0..nm-1] (places set): gives it
 * its place in the rating order and updates the rows of its human players
 * in every scope and period, inside the caller's transaction (nothing is
 * written while the rows are still to be built: records_prepare takes the
 * game then). Returns 0, or -1 on a store error (the caller rolls back). */
int records_game_end(struct store *st, const struct store_game *g, const struct store_member *m,
                     int nm);

/* Builds the rows from every finished game when the store says they are
 * still to be built (after migration 0007), in one transaction of its own
 * (none may be open). Returns 0 (also when there was nothing to do), or -1
 * with nothing written. */
int records_prepare(struct store *st);

/* Answers /leaderboard [all] [week|month|year] or /stats [player] [all]
 * into out, in language `lang`, from `source`; the table's members
 * m[0..nm-1] (m may be NULL when nm is 0) name a player who has no
 * finished game yet. Returns 0, or -1 on a store error. */
int records_answer(struct store *st, const struct bot_req *req, int64_t now, int min_games,
                   int lang, const char *game, const struct store_member *m, int nm,
                   enum records_source source, struct text *out);

/* records_answer from the stored rows. */
int records_reply(struct store *st, const struct bot_req *req, int64_t now, int min_games, int lang,
                  const char *game, const struct store_member *m, int nm, struct text *out);

#endif
