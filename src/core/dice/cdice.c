#include "rlyeh/cdice.h"

#include <assert.h>
#include <string.h>

#define PLAYING (-2)

/* For the rules' helpers: inlined into every caller, so that the fast path,
 * which passes no event list, keeps none of the events' code. */
#define RULE static inline __attribute__((always_inline))

static const uint8_t die_faces[CDICE_DIE] = {
	CDICE_YELLOW_SIGN, CDICE_YELLOW_SIGN, CDICE_YELLOW_SIGN, CDICE_YELLOW_SIGN,
	CDICE_YELLOW_SIGN, CDICE_TENTACLE,    CDICE_TENTACLE,    CDICE_TENTACLE,
	CDICE_TENTACLE,    CDICE_ELDER_SIGN,  CDICE_CTHULHU,     CDICE_EYE,
};

static const char *const face_names[CDICE_FACES] = {
	"yellow-sign", "tentacle", "elder-sign", "cthulhu", "eye",
};

enum cdice_face cdice_die_face(int value)
{
	assert(value >= 0 && value < CDICE_DIE);
	return (enum cdice_face)die_faces[value];
}

int cdice_face_die(enum cdice_face face)
{
	for (int v = 0; v < CDICE_DIE; v++)
		if (die_faces[v] == face)
			return v;
	return -1;
}

const char *cdice_face_name(enum cdice_face face)
{
	return (unsigned)face < CDICE_FACES ? face_names[face] : "?";
}

int cdice_face_parse(const char *name)
{
	for (int f = 0; f < CDICE_FACES; f++)
		if (strcmp(name, face_names[f]) == 0)
			return f;
	return -1;
}

int cdice_owner(const struct cdice *g, int seat)
{
	return g->per_player ? seat % 2 : seat;
}

int cdice_series_first(const struct game_result *previous, int chosen)
{
	if (previous && previous->over && previous->winner >= 0)
		return previous->winner;
	return chosen;
}

int cdice_init(struct cdice *g, const struct game_setup *setup)
{
	int n;

	if (setup->per_player) {
		if (setup->players != 2 || setup->per_player < 2 || setup->per_player > 3)
			return GAME_EARG;
		n = 2 * setup->per_player;
	} else {
		if (setup->players < CDICE_MIN || setup->players > CDICE_MAX)
			return GAME_EARG;
		n = setup->players;
	}
	if (setup->first < 0 || setup->first >= n)
		return GAME_EARG;
	memset(g, 0, sizeof(*g));
	g->n = (uint8_t)n;
	g->per_player = (uint8_t)setup->per_player;
	g->phase = CDICE_VICTIM;
	g->caster = (uint8_t)setup->first;
	g->winner = PLAYING;
	for (int i = 0; i < n; i++)
		g->sanity[i] = CDICE_SANITY;
	return GAME_OK;
}

/* One token leaves `from` (a seat, or the pool); it goes to `to`. */
RULE void move_token(struct cdice *g, int from, int to, struct game_events *ev)
{
	if (from == CDICE_POOL)
		g->pool--;
	else
		g->sanity[from]--;
	if (to == CDICE_POOL)
		g->pool++;
	else
		g->sanity[to]++;
	game_emit(ev, CDICE_EV_MOVE, from, to, 0);
	if (from != CDICE_POOL && g->sanity[from] == 0)
		game_emit(ev, CDICE_EV_MAD, from, -1, 0);
	if (to != CDICE_POOL && g->sanity[to] == 1)
		game_emit(ev, CDICE_EV_SANE, to, -1, 0);
}

/* Resolves `face` (never the Eye) rolled by `roller` against `target`. */
RULE void resolve(struct cdice *g, int roller, int target, enum cdice_face face,
                  struct game_events *ev)
{
	int moved = 0;

	switch (face) {
	case CDICE_YELLOW_SIGN:
		if (g->sanity[target] > 0) {
			move_token(g, target, CDICE_POOL, ev);
			moved = 1;
		}
		break;
	case CDICE_TENTACLE:
		/* The Caster takes from the Victim whoever rolled (R5); a mad
		 * Caster's take goes to the pool (R6). */
		if (g->sanity[g->victim] > 0) {
			int to = g->sanity[g->caster] > 0 ? g->caster : CDICE_POOL;
			move_token(g, g->victim, to, ev);
			moved = 1;
		}
		break;
	case CDICE_ELDER_SIGN:
		if (g->pool > 0) {
			move_token(g, CDICE_POOL, roller, ev);
			moved = 1;
		}
		break;
	case CDICE_CTHULHU:
		/* Everyone with sanity, the roller included; the mad lose nothing (R7). */
		for (int i = 0; i < g->n; i++) {
			if (g->sanity[i] > 0) {
				move_token(g, i, CDICE_POOL, ev);
				moved = 1;
			}
		}
		break;
	case CDICE_EYE:
	case CDICE_FACES:
	default:
		assert(!"resolve: not a resolvable face");
		break;
	}
	if (!moved)
		game_emit(ev, CDICE_EV_NOTHING, roller, target, face);
}

static int clamp16(uint32_t v)
{
	return v > INT16_MAX ? INT16_MAX : (int)v;
}

/* End of a complete turn (R11): exactly one sane cultist wins, none means
 * Cthulhu wins, otherwise the seat to the Caster's left casts next. */
RULE void end_turn(struct cdice *g, struct game_events *ev)
{
	int sane = 0, last = -1;

	g->turn++;
	for (int i = 0; i < g->n; i++) {
		if (g->sanity[i] > 0) {
			sane++;
			last = i;
		}
	}
	if (sane <= 1) {
		g->phase = CDICE_OVER;
		g->winner = (int8_t)(sane == 1 ? last : CDICE_CTHULHU_WINS);
		game_emit(ev, CDICE_EV_END, g->winner,
		          sane == 1 && g->per_player ? cdice_owner(g, last) : -1, clamp16(g->turn));
		return;
	}
	g->caster = (uint8_t)(g->caster + 1 == g->n ? 0 : g->caster + 1);
	g->phase = CDICE_VICTIM;
}

static int legal_victim(const struct cdice *g, int v)
{
	return v >= 0 && v < g->n && v != g->caster && g->sanity[v] > 0;
}

int cdice_victim(struct cdice *g, int victim, struct game_events *ev)
{
	if (g->phase == CDICE_OVER)
		return GAME_EOVER;
	if (g->phase != CDICE_VICTIM)
		return GAME_EPHASE;
	if (!legal_victim(g, victim))
		return GAME_EILLEGAL;
	game_emit(ev, CDICE_EV_TURN, g->caster, -1, clamp16(g->turn + 1));
	g->victim = (uint8_t)victim;
	g->phase = CDICE_CURSE;
	game_emit(ev, CDICE_EV_VICTIM, g->caster, victim, 0);
	return GAME_OK;
}

/* Resolves a face rolled or chosen in the current phase and moves on. */
RULE void finish_roll(struct cdice *g, enum cdice_face face, struct game_events *ev)
{
	if (g->phase == CDICE_CURSE || g->phase == CDICE_CURSE_EYE) {
		resolve(g, g->caster, g->victim, face, ev);
		/* The Victim responds even if just driven mad (R9). */
		g->phase = CDICE_RESPONSE;
	} else {
		/* The response targets the Caster, mad or not (R10). */
		resolve(g, g->victim, g->caster, face, ev);
		end_turn(g, ev);
	}
}

int cdice_roll(struct cdice *g, enum cdice_face face, struct game_events *ev)
{
	int roller, target;

	if (g->phase == CDICE_OVER)
		return GAME_EOVER;
	if (g->phase != CDICE_CURSE && g->phase != CDICE_RESPONSE)
		return GAME_EPHASE;
	if ((unsigned)face >= CDICE_FACES)
		return GAME_EILLEGAL;
	roller = g->phase == CDICE_CURSE ? g->caster : g->victim;
	target = g->phase == CDICE_CURSE ? g->victim : g->caster;
	game_emit(ev, g->phase == CDICE_CURSE ? CDICE_EV_ROLL : CDICE_EV_RESPONSE, roller, target,
	          face);
	if (face == CDICE_EYE) {
		g->phase = g->phase == CDICE_CURSE ? CDICE_CURSE_EYE : CDICE_RESPONSE_EYE;
		return GAME_OK;
	}
	finish_roll(g, face, ev);
	return GAME_OK;
}

int cdice_eye(struct cdice *g, enum cdice_face face, struct game_events *ev)
{
	if (g->phase == CDICE_OVER)
		return GAME_EOVER;
	if (g->phase != CDICE_CURSE_EYE && g->phase != CDICE_RESPONSE_EYE)
		return GAME_EPHASE;
	/* The Eye is not a choice for itself (R8). */
	if ((unsigned)face >= CDICE_EYE)
		return GAME_EILLEGAL;
	game_emit(ev, CDICE_EV_EYE, g->phase == CDICE_CURSE_EYE ? g->caster : g->victim, -1, face);
	finish_roll(g, face, ev);
	return GAME_OK;
}

int cdice_apply(struct cdice *g, int value, struct game_events *ev)
{
	switch (g->phase) {
	case CDICE_VICTIM:
		return cdice_victim(g, value, ev);
	case CDICE_CURSE:
	case CDICE_RESPONSE:
		if (value < 0 || value >= CDICE_DIE)
			return GAME_EILLEGAL;
		return cdice_roll(g, cdice_die_face(value), ev);
	case CDICE_CURSE_EYE:
	case CDICE_RESPONSE_EYE:
		if (value < 0 || value >= CDICE_EYE)
			return GAME_EILLEGAL;
		return cdice_eye(g, (enum cdice_face)value, ev);
	case CDICE_OVER:
		return GAME_EOVER;
	default:
		assert(!"cdice_apply: bad phase");
		return GAME_EPHASE;
	}
}

void cdice_step(const struct cdice *g, struct game_step *out)
{
	switch (g->phase) {
	case CDICE_VICTIM:
		out->node = GAME_NODE_CHOICE;
		out->seat = g->caster;
		out->count = 0;
		for (int i = 0; i < g->n; i++)
			if (legal_victim(g, i))
				out->options[out->count++] = i;
		break;
	case CDICE_CURSE:
	case CDICE_RESPONSE:
		out->node = GAME_NODE_CHANCE;
		out->seat = g->phase == CDICE_CURSE ? g->caster : g->victim;
		out->count = CDICE_DIE;
		break;
	case CDICE_CURSE_EYE:
	case CDICE_RESPONSE_EYE:
		out->node = GAME_NODE_CHOICE;
		out->seat = g->phase == CDICE_CURSE_EYE ? g->caster : g->victim;
		out->count = CDICE_EYE;
		for (int f = 0; f < CDICE_EYE; f++)
			out->options[f] = f;
		break;
	case CDICE_OVER:
	default:
		out->node = GAME_NODE_OVER;
		out->seat = -1;
		out->count = 0;
		break;
	}
	out->kind = g->phase;
}

void cdice_result(const struct cdice *g, struct game_result *out)
{
	out->over = g->phase == CDICE_OVER;
	out->winner = out->over && g->winner >= 0 ? g->winner : -1;
	out->player = out->winner >= 0 ? cdice_owner(g, out->winner) : -1;
	out->turns = (int)g->turn;
	out->points = 0;
}

/* ---- policies ---- */

int cdice_policy_random(const void *state, const struct game_step *step, struct rng *rng)
{
	(void)state;
	return step->options[rng_below(rng, (uint32_t)step->count)];
}

/* Static value of a position for the seats of `player`, from that player's
 * side: its own sanity and sane cultists against the strongest rival. */
static int evaluate(const struct cdice *g, int player)
{
	int own = 0, own_sane = 0, rival_max = 0, rival_sum = 0, rival_sane = 0;

	for (int i = 0; i < g->n; i++) {
		int s = g->sanity[i];
		if (cdice_owner(g, i) == player) {
			own += s;
			own_sane += s > 0;
		} else {
			rival_sum += s;
			rival_sane += s > 0;
			if (s > rival_max)
				rival_max = s;
		}
	}
	if (own_sane == 0)
		return -100000 + own;
	return 12 * own - 6 * rival_max - 3 * rival_sum - 8 * rival_sane;
}

/* Value of choosing Eye face `face` now: the resolved position, and, for a
 * response, the end of the turn that follows at once. */
static int eye_value(const struct cdice *g, int face, int player)
{
	struct cdice c = *g;
	struct game_result r;

	cdice_eye(&c, (enum cdice_face)face, NULL);
	cdice_result(&c, &r);
	if (r.over)
		return r.player == player ? 1000000 : -1000000;
	return evaluate(&c, player);
}

int cdice_policy_heuristic(const void *state, const struct game_step *step, struct rng *rng)
{
	const struct cdice *g = state;
	int me = cdice_owner(g, step->seat);
	int best = step->options[0], best_value = 0;

	(void)rng;
	if (g->phase == CDICE_VICTIM) {
		/* Pressure the strongest rival: most sanity, then the one who
		 * casts soonest after me. Only own cultists left to curse (Rival
		 * Cults): curse the weakest, to leave exactly one standing. */
		int found = 0;
		for (int k = 0; k < step->count; k++) {
			int v = step->options[k];
			int value = cdice_owner(g, v) != me ? 100 + g->sanity[v] : -g->sanity[v];
			if (!found || value > best_value) {
				best = v;
				best_value = value;
				found = 1;
			}
		}
		return best;
	}
	for (int k = 0; k < step->count; k++) {
		int value = eye_value(g, step->options[k], me);
		if (k == 0 || value > best_value) {
			best = step->options[k];
			best_value = value;
		}
	}
	return best;
}

static cdice_solver_fn solver_hook;

void cdice_set_solver(cdice_solver_fn fn)
{
	solver_hook = fn;
}

/* The installed solver's choice; the heuristic where there is no solver or
 * it has no table for g (it then leaves rng untouched). */
int cdice_policy_solver(const void *state, const struct game_step *step, struct rng *rng)
{
	const struct cdice *g = state;
	int value = solver_hook ? solver_hook(g, step, rng) : -1;

	return value >= 0 ? value : cdice_policy_heuristic(state, step, rng);
}

/* ---- the fast path ---- */

long cdice_play(struct cdice *g, const struct game_policy *const *policy, struct rng *rng)
{
	long applied = 0;

	for (;; applied++) {
		const struct game_policy *p;
		struct game_step step;
		int rc;

		switch (g->phase) {
		case CDICE_CURSE:
		case CDICE_RESPONSE: {
			enum cdice_face face =
			    (enum cdice_face)die_faces[rng_below(rng, CDICE_DIE)];
			if (face == CDICE_EYE)
				g->phase =
				    g->phase == CDICE_CURSE ? CDICE_CURSE_EYE : CDICE_RESPONSE_EYE;
			else
				finish_roll(g, face, NULL);
			continue;
		}
		case CDICE_VICTIM:
		case CDICE_CURSE_EYE:
			p = policy[g->caster];
			break;
		case CDICE_RESPONSE_EYE:
			p = policy[g->victim];
			break;
		default:
			return applied;
		}
		if (p->choose == cdice_policy_random) {
			/* The draws of cdice_policy_random from cdice_step's options. */
			if (g->phase == CDICE_VICTIM) {
				int options[CDICE_MAX], count = 0;
				for (int i = 0; i < g->n; i++)
					if (legal_victim(g, i))
						options[count++] = i;
				g->victim = (uint8_t)options[rng_below(rng, (uint32_t)count)];
				g->phase = CDICE_CURSE;
			} else {
				finish_roll(g, (enum cdice_face)rng_below(rng, CDICE_EYE), NULL);
			}
			continue;
		}
		cdice_step(g, &step);
		rc = cdice_apply(g, p->choose(g, &step, rng), NULL);
		assert(rc == GAME_OK);
		(void)rc;
	}
}

/* ---- the generic boundary ---- */

GAME_OPS_ADAPTERS(cdice)

static long ops_play(void *state, const struct game_policy *const *policy, struct rng *rng)
{
	return cdice_play(state, policy, rng);
}

static const struct game_policy policies[] = {
	{ "random", cdice_policy_random },
	{ "heuristic", cdice_policy_heuristic },
	{ "solver", cdice_policy_solver },
	{ NULL, NULL },
};

const struct game_ops cdice_ops = {
	.name = "cthulhu-dice",
	.state_size = sizeof(struct cdice),
	.seats_max = CDICE_MAX,
	.init = ops_init,
	.step = ops_step,
	.apply = ops_apply,
	.result = ops_result,
	.seats = ops_seats,
	.policies = policies,
	.play = ops_play,
};
