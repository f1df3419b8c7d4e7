#include "rlyeh/esigns.h"

#include "rlyeh/esturn.h"

#include <assert.h>
#include <string.h>

#define E ESIGNS_ELDER_SIGN
#define C ESIGNS_CLUE
#define T ESIGNS_TENTACLE

static const uint8_t kind_dice[ESIGNS_KINDS] = { 8, 4, 3 };

static const uint8_t die_faces[ESIGNS_KINDS][ESIGNS_DIE] = {
	{ E, E, E, C, C, T },
	{ E, E, C, C, T, T },
	{ E, C, C, T, T, T },
};

#undef E
#undef C
#undef T

static const char *const kind_names[ESIGNS_KINDS] = { "library", "museum", "tomb" };
static const char *const face_names[ESIGNS_FACES] = { "elder-sign", "clue", "tentacle" };

enum esigns_face esigns_die_face(enum esigns_kind kind, int value)
{
	assert((unsigned)kind < ESIGNS_KINDS && value >= 0 && value < ESIGNS_DIE);
	return (enum esigns_face)die_faces[kind][value];
}

int esigns_face_die(enum esigns_kind kind, enum esigns_face face)
{
	assert((unsigned)kind < ESIGNS_KINDS);
	for (int v = 0; v < ESIGNS_DIE; v++)
		if (die_faces[kind][v] == face)
			return v;
	return -1;
}

static int name_parse(const char *const *names, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (strcmp(name, names[i]) == 0)
			return i;
	return -1;
}

const char *esigns_kind_name(enum esigns_kind kind)
{
	return (unsigned)kind < ESIGNS_KINDS ? kind_names[kind] : "?";
}

int esigns_kind_parse(const char *name)
{
	return name_parse(kind_names, ESIGNS_KINDS, name);
}

const char *esigns_face_name(enum esigns_face face)
{
	return (unsigned)face < ESIGNS_FACES ? face_names[face] : "?";
}

int esigns_face_parse(const char *name)
{
	return name_parse(face_names, ESIGNS_FACES, name);
}

static int sum3(const uint8_t *a)
{
	return a[0] + a[1] + a[2];
}

static int clamp16(uint32_t v)
{
	return v > INT16_MAX ? INT16_MAX : (int)v;
}

/* ---- queries ---- */

int esigns_bag(const struct esigns *g, enum esigns_kind kind)
{
	return (unsigned)kind < ESIGNS_KINDS ? g->bag[kind] : 0;
}

int esigns_hand(const struct esigns *g, enum esigns_kind kind)
{
	return (unsigned)kind < ESIGNS_KINDS ? g->hand[kind] : 0;
}

int esigns_stash_dice(const struct esigns *g, enum esigns_kind kind)
{
	return (unsigned)kind < ESIGNS_KINDS ? g->stash[kind] : 0;
}

int esigns_pile(const struct esigns *g, enum esigns_kind kind)
{
	return (unsigned)kind < ESIGNS_KINDS ? g->pile[kind] : 0;
}

int esigns_stash(const struct esigns *g)
{
	return (int)g->signs;
}

int esigns_tentacles(const struct esigns *g)
{
	return sum3(g->pile);
}

long esigns_score(const struct esigns *g, int seat)
{
	return seat >= 0 && seat < g->n ? (long)g->score[seat] : 0;
}

int esigns_turn_seat(const struct esigns *g)
{
	return g->phase == ESIGNS_OVER ? -1 : g->seat;
}

int esigns_round(const struct esigns *g)
{
	return (int)g->round;
}

int esigns_tiebreak(const struct esigns *g)
{
	return g->tiebreak;
}

int esigns_in(const struct esigns *g, int seat)
{
	return seat >= 0 && seat < g->n && (g->in >> seat & 1);
}

int esigns_rolling(const struct esigns *g)
{
	if (g->phase != ESIGNS_ROLL)
		return -1;
	for (int k = 0; k < ESIGNS_KINDS; k++)
		if (g->roll[k])
			return k;
	assert(!"esigns_rolling: nothing to roll");
	return -1;
}

int esigns_kind_draw(const struct esigns *g, enum esigns_kind kind)
{
	int v = 0;

	if ((unsigned)kind >= ESIGNS_KINDS || g->bag[kind] == 0)
		return -1;
	for (int k = 0; k < (int)kind; k++)
		v += g->bag[k];
	return v;
}

/* ---- the turn ---- */

int esigns_init(struct esigns *g, const struct game_setup *setup)
{
	if (setup->players < ESIGNS_MIN || setup->players > ESIGNS_MAX || setup->per_player)
		return GAME_EARG;
	if (setup->first < 0 || setup->first >= setup->players)
		return GAME_EARG;
	memset(g, 0, sizeof(*g));
	g->n = (uint8_t)setup->players;
	g->first = (uint8_t)setup->first;
	g->seat = g->first;
	g->in = (uint16_t)((1u << g->n) - 1);
	g->round = 1;
	g->winner = -1;
	g->phase = ESIGNS_DRAW;
	memcpy(g->bag, kind_dice, sizeof(g->bag));
	return GAME_OK;
}

/* The seat's place in the order of a round: 0 for the seat that opens it. */
static int place(const struct esigns *g, int seat)
{
	return (seat - g->first + g->n) % g->n;
}

/* The next seat still in after place `after` (-1: from the start of the
 * round); -1 when the round is over. */
static int next_in(const struct esigns *g, int after)
{
	for (int p = after + 1; p < g->n; p++) {
		int s = (g->first + p) % g->n;
		if (g->in >> s & 1)
			return s;
	}
	return -1;
}

static void begin_turn(struct esigns *g, int seat)
{
	g->seat = (uint8_t)seat;
	g->phase = ESIGNS_DRAW;
	g->started = 0;
}

/* End of a round with a score of 13 or more, or of a tie-break round: the
 * devoured (first time only), then the single leader wins or the leaders
 * play a tie-break round (P2). */
static void decide_game(struct esigns *g, struct game_events *ev)
{
	uint32_t best = 0;
	int leaders = 0, last = -1;
	uint16_t tied = 0;

	if (!g->tiebreak) {
		for (int s = 0; s < g->n; s++) {
			if (g->score[s] < ESIGNS_GOAL) {
				g->in &= (uint16_t) ~(1u << s);
				game_emit(ev, ESIGNS_EV_DEVOURED, s, -1, clamp16(g->score[s]));
			}
		}
	}
	for (int s = 0; s < g->n; s++)
		if ((g->in >> s & 1) && g->score[s] > best)
			best = g->score[s];
	for (int s = 0; s < g->n; s++) {
		if ((g->in >> s & 1) && g->score[s] == best) {
			tied |= (uint16_t)(1u << s);
			leaders++;
			last = s;
		}
	}
	assert(leaders > 0);
	g->in = tied;
	if (leaders == 1) {
		g->winner = (int8_t)last;
		g->phase = ESIGNS_OVER;
		game_emit(ev, ESIGNS_EV_END, last, clamp16(best), clamp16(g->turn));
		return;
	}
	g->tiebreak++;
	g->round++;
	game_emit(ev, ESIGNS_EV_TIEBREAK, -1, g->tiebreak, tied);
	begin_turn(g, next_in(g, -1));
}

/* All dice back into the bag; the next seat of the round plays, or the
 * round ends (with the game when a score reached 13). */
static void end_turn(struct esigns *g, struct game_events *ev)
{
	int next = next_in(g, place(g, g->seat));
	int goal = 0;

	g->turn++;
	memcpy(g->bag, kind_dice, sizeof(g->bag));
	memset(g->hand, 0, sizeof(g->hand));
	memset(g->roll, 0, sizeof(g->roll));
	memset(g->stash, 0, sizeof(g->stash));
	memset(g->pile, 0, sizeof(g->pile));
	g->signs = 0;
	if (next >= 0) {
		begin_turn(g, next);
		return;
	}
	game_emit(ev, ESIGNS_EV_ROUND, -1, g->tiebreak > 0, clamp16(g->round));
	for (int s = 0; s < g->n; s++)
		goal |= g->score[s] >= ESIGNS_GOAL;
	if (goal || g->tiebreak) {
		decide_game(g, ev);
		return;
	}
	g->round++;
	begin_turn(g, next_in(g, -1));
}

/* The hand is full, or the bag empty: roll every die in hand. */
static void begin_throw(struct esigns *g)
{
	assert(sum3(g->hand) > 0);
	memcpy(g->roll, g->hand, sizeof(g->roll));
	g->phase = ESIGNS_ROLL;
}

/* Draws or rolls, as the hand needs. */
static void fill_hand(struct esigns *g)
{
	if (sum3(g->hand) >= ESIGNS_HAND || sum3(g->bag) == 0)
		begin_throw(g);
	else
		g->phase = ESIGNS_DRAW;
}

int esigns_draw(struct esigns *g, enum esigns_kind kind, struct game_events *ev)
{
	if (g->phase == ESIGNS_OVER)
		return GAME_EOVER;
	if (g->phase != ESIGNS_DRAW)
		return GAME_EPHASE;
	if ((unsigned)kind >= ESIGNS_KINDS || g->bag[kind] == 0)
		return GAME_EILLEGAL;
	if (!g->started) {
		g->started = 1;
		game_emit(ev, ESIGNS_EV_TURN, g->seat, clamp16(g->round), clamp16(g->turn + 1));
	}
	g->bag[kind]--;
	g->hand[kind]++;
	game_emit(ev, ESIGNS_EV_DRAW, g->seat, kind, sum3(g->bag));
	fill_hand(g);
	return GAME_OK;
}

int esigns_roll(struct esigns *g, enum esigns_face face, struct game_events *ev)
{
	int kind;

	if (g->phase == ESIGNS_OVER)
		return GAME_EOVER;
	if (g->phase != ESIGNS_ROLL)
		return GAME_EPHASE;
	if ((unsigned)face >= ESIGNS_FACES)
		return GAME_EILLEGAL;
	kind = esigns_rolling(g);
	g->roll[kind]--;
	game_emit(ev, ESIGNS_EV_ROLL, g->seat, kind, face);
	if (face == ESIGNS_ELDER_SIGN) {
		g->hand[kind]--;
		g->stash[kind]++;
		g->signs++;
	} else if (face == ESIGNS_TENTACLE) {
		g->hand[kind]--;
		g->pile[kind]++;
	}
	if (sum3(g->roll))
		return GAME_OK;
	if (sum3(g->pile) >= ESIGNS_DOWNED) {
		game_emit(ev, ESIGNS_EV_DOWNED, g->seat, sum3(g->pile), clamp16(g->signs));
		end_turn(g, ev);
		return GAME_OK;
	}
	g->phase = ESIGNS_DECIDE;
	return GAME_OK;
}

int esigns_decide(struct esigns *g, int choice, struct game_events *ev)
{
	int need;

	if (g->phase == ESIGNS_OVER)
		return GAME_EOVER;
	if (g->phase != ESIGNS_DECIDE)
		return GAME_EPHASE;
	if (choice == ESIGNS_RETREAT) {
		g->score[g->seat] += g->signs;
		g->points += g->signs;
		game_emit(ev, ESIGNS_EV_BANK, g->seat, clamp16(g->score[g->seat]),
		          clamp16(g->signs));
		end_turn(g, ev);
		return GAME_OK;
	}
	if (choice != ESIGNS_CONTINUE)
		return GAME_EILLEGAL;
	game_emit(ev, ESIGNS_EV_CONTINUE, g->seat, sum3(g->hand), clamp16(g->signs));
	need = ESIGNS_HAND - sum3(g->hand);
	if (sum3(g->bag) < need) {
		/* P1: the stash's dice back into the bag, its points still count. */
		int moved = sum3(g->stash);
		for (int k = 0; k < ESIGNS_KINDS; k++) {
			g->bag[k] += g->stash[k];
			g->stash[k] = 0;
		}
		game_emit(ev, ESIGNS_EV_REFILL, g->seat, sum3(g->bag), moved);
	}
	fill_hand(g);
	return GAME_OK;
}

int esigns_apply(struct esigns *g, int value, struct game_events *ev)
{
	switch (g->phase) {
	case ESIGNS_DRAW:
		if (value < 0 || value >= sum3(g->bag))
			return GAME_EILLEGAL;
		for (int k = 0; k < ESIGNS_KINDS; k++) {
			if (value < g->bag[k])
				return esigns_draw(g, (enum esigns_kind)k, ev);
			value -= g->bag[k];
		}
		assert(!"esigns_apply: draw out of the bag");
		return GAME_EILLEGAL;
	case ESIGNS_ROLL:
		if (value < 0 || value >= ESIGNS_DIE)
			return GAME_EILLEGAL;
		return esigns_roll(g, esigns_die_face((enum esigns_kind)esigns_rolling(g), value),
		                   ev);
	case ESIGNS_DECIDE:
		return esigns_decide(g, value, ev);
	case ESIGNS_OVER:
		return GAME_EOVER;
	default:
		assert(!"esigns_apply: bad phase");
		return GAME_EPHASE;
	}
}

void esigns_step(const struct esigns *g, struct game_step *out)
{
	switch (g->phase) {
	case ESIGNS_DRAW:
		out->node = GAME_NODE_CHANCE;
		out->seat = g->seat;
		out->count = sum3(g->bag);
		break;
	case ESIGNS_ROLL:
		out->node = GAME_NODE_CHANCE;
		out->seat = g->seat;
		out->count = ESIGNS_DIE;
		break;
	case ESIGNS_DECIDE:
		out->node = GAME_NODE_CHOICE;
		out->seat = g->seat;
		out->count = 2;
		out->options[0] = ESIGNS_CONTINUE;
		out->options[1] = ESIGNS_RETREAT;
		break;
	case ESIGNS_OVER:
	default:
		out->node = GAME_NODE_OVER;
		out->seat = -1;
		out->count = 0;
		break;
	}
	out->kind = g->phase;
}

void esigns_result(const struct esigns *g, struct game_result *out)
{
	out->over = g->phase == ESIGNS_OVER;
	out->winner = out->over ? g->winner : -1;
	out->player = out->winner;
	out->turns = (int)g->turn;
	out->points = g->points;
}

/* ---- odds ---- */

/* The faces of a die of `kind` that show `face`. */
static int faces_of(int kind, int face)
{
	int n = 0;

	for (int v = 0; v < ESIGNS_DIE; v++)
		n += die_faces[kind][v] == face;
	return n;
}

/* Adds the outcomes of rolling `hand`, reached with probability p, to
 * `out`; `room` Tentacles down the seat. */
static void odds_roll(const int *hand, int room, double p, struct esigns_odds *out)
{
	/* d[t][e]: probability of t Tentacles and e Elder Signs so far. */
	double d[ESIGNS_HAND + 1][ESIGNS_HAND + 1] = { { 1.0 } };
	int dice = 0;

	for (int k = 0; k < ESIGNS_KINDS; k++) {
		double pe = faces_of(k, ESIGNS_ELDER_SIGN) / (double)ESIGNS_DIE;
		double pt = faces_of(k, ESIGNS_TENTACLE) / (double)ESIGNS_DIE;
		double pc = faces_of(k, ESIGNS_CLUE) / (double)ESIGNS_DIE;
		for (int i = 0; i < hand[k]; i++, dice++) {
			for (int t = dice; t >= 0; t--) {
				for (int e = dice - t; e >= 0; e--) {
					double q = d[t][e];
					d[t][e] = q * pc;
					d[t + 1][e] += q * pt;
					d[t][e + 1] += q * pe;
				}
			}
		}
	}
	for (int t = 0; t <= dice; t++) {
		for (int e = 0; e + t <= dice; e++) {
			if (t >= room)
				out->down += p * d[t][e];
			else
				out->signs += p * d[t][e] * e;
		}
	}
}

/* Draws `need` more dice from `bag` into `hand` in every way, then rolls. */
static void odds_draw(int *bag, int *hand, int need, int room, double p, struct esigns_odds *out)
{
	int total = bag[0] + bag[1] + bag[2];

	if (need == 0 || total == 0) {
		odds_roll(hand, room, p, out);
		return;
	}
	for (int k = 0; k < ESIGNS_KINDS; k++) {
		if (!bag[k])
			continue;
		double q = p * bag[k] / total;
		bag[k]--;
		hand[k]++;
		odds_draw(bag, hand, need - 1, room, q, out);
		bag[k]++;
		hand[k]--;
	}
}

void esigns_odds(const struct esigns *g, struct esigns_odds *out)
{
	int bag[ESIGNS_KINDS], hand[ESIGNS_KINDS], need = ESIGNS_HAND - sum3(g->hand);

	out->down = 0.0;
	out->signs = 0.0;
	for (int k = 0; k < ESIGNS_KINDS; k++) {
		bag[k] = g->bag[k];
		hand[k] = g->hand[k];
	}
	if (sum3(g->bag) < need) /* P1 */
		for (int k = 0; k < ESIGNS_KINDS; k++)
			bag[k] += g->stash[k];
	odds_draw(bag, hand, need, ESIGNS_DOWNED - sum3(g->pile), 1.0, out);
}

/* ---- policies ---- */

int esigns_policy_greedy2(const void *state, const struct game_step *step, struct rng *rng)
{
	(void)step;
	(void)rng;
	return esigns_tentacles(state) <= 1 ? ESIGNS_CONTINUE : ESIGNS_RETREAT;
}

/* Whether a seat still in plays after `seat` in this round. */
static int plays_later(const struct esigns *g, int seat)
{
	return next_in(g, place(g, seat)) >= 0;
}

/* "expect": the end of the game first, then the expected points.
 * - The last round (a score already reached 13) or a tie-break: banking
 *   under 13 or under the best other score still in loses for sure, so
 *   continue; level with it, retreat into a tie-break unless the next throw
 *   downs with less than 30 %.
 * - Banking would reach 13, or lead in the last round: retreat, unless a
 *   seat still plays after this one in the round and the next throw downs
 *   with less than 10 % (a wider lead is then worth the risk).
 * - Otherwise continue while the Elder Signs the next throw is expected to
 *   add outweigh 0.7 times the chance of losing the points at stake (the
 *   one-throw look-ahead undervalues the throws after it), 0.5 times when a
 *   rival is within 3 of the goal and more than 3 ahead.
 * Against three greedy-2 players it wins about 32 % of 4-player games. */
int esigns_policy_expect(const void *state, const struct game_step *step, struct rng *rng)
{
	const struct esigns *g = state;
	struct esigns_odds o;
	uint32_t mine = g->score[step->seat] + g->signs, rival = 0;
	int last = g->tiebreak > 0;
	double weight = 0.7;

	(void)rng;
	for (int s = 0; s < g->n; s++) {
		last |= g->score[s] >= ESIGNS_GOAL;
		if (s != step->seat && (g->in >> s & 1) && g->score[s] > rival)
			rival = g->score[s];
	}
	esigns_odds(g, &o);
	if (last && (mine < ESIGNS_GOAL || mine < rival))
		return ESIGNS_CONTINUE;
	if (last && mine == rival)
		return o.down < 0.3 ? ESIGNS_CONTINUE : ESIGNS_RETREAT;
	if (last || mine >= ESIGNS_GOAL)
		return plays_later(g, step->seat) && o.down < 0.1 ? ESIGNS_CONTINUE
		                                                  : ESIGNS_RETREAT;
	if (rival >= ESIGNS_GOAL - 3 && rival > mine + 3)
		weight = 0.5;
	return o.signs > weight * o.down * g->signs ? ESIGNS_CONTINUE : ESIGNS_RETREAT;
}

/* ---- the generic boundary ---- */

GAME_OPS_ADAPTERS(esigns)

static const struct game_policy policies[] = {
	{ "greedy-2", esigns_policy_greedy2 },
	{ "expect", esigns_policy_expect },
	{ "ev", esturn_policy_ev },
	{ "best", esturn_policy_best },
	{ NULL, NULL },
};

const struct game_ops esigns_ops = {
	.name = "elder-signs",
	.state_size = sizeof(struct esigns),
	.seats_max = ESIGNS_MAX,
	.scores = 1,
	.init = ops_init,
	.step = ops_step,
	.apply = ops_apply,
	.result = ops_result,
	.seats = ops_seats,
	.policies = policies,
};
