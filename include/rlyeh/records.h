/* records: the leaderboard and player statistics of finished games, rebuilt
 * from the store on demand.
 *
 * Ranking: the Weng-Lin (OpenSkill Plackett-Luce) rating of the human players
 * of each game, oldest game first; the winner takes place 0, everyone else
 * place 1 (tied); after a Cthulhu win everyone ties. Computer players are not
 * rated (a game won by one counts as a tie of its humans), and a game with
 * fewer than two humans changes no rating. Players are ranked by mu - 3 sigma
 * once they have min_games finished games. */
#ifndef RLYEH_RECORDS_H
#define RLYEH_RECORDS_H

#include <stdint.h>

#include "rlyeh/bot.h"
#include "rlyeh/store.h"
#include "rlyeh/text.h"

#define RECORDS_TOP 10

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
};

/* Gathers the records of game kind `game` on `server` (NULL: all servers)
 * for games finished in [since, until) (0: unbounded). Returns 0, or -1 on
 * a store error or short memory (r then empty). Free with records_free. */
int records_build(struct store *st, const char *game, const char *server, int64_t since,
                  int64_t until, struct records *r);

void records_free(struct records *r);

/* Sorts players by rank: the ranked (>= min_games) by mu - 3 sigma, then
 * the unranked by games; ties by id. */
void records_sort(struct records *r, int min_games);

/* Answers /leaderboard [all] [week|month|year] or /stats [player] [all]
 * into out, in language `lang`; the table's members m[0..nm-1] (m may be
 * NULL when nm is 0) name a player who has no finished game yet. Returns
 * 0, or -1 on a store error. */
int records_reply(struct store *st, const struct bot_req *req, int64_t now, int min_games, int lang,
                  const char *game, const struct store_member *m, int nm, struct text *out);

#endif
