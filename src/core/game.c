#include "rlyeh/game.h"

#include <assert.h>
#include <string.h>

#include "rlyeh/cdice.h"
#include "rlyeh/ctgame.h"
#include "rlyeh/esigns.h"

/* The registry: one line per game. */
static const struct game_ops *const games[] = {
	&cdice_ops,
	&esigns_ops,
	&ctgame_ops,
};

const char *game_strerror(int err)
{
	switch (err) {
	case GAME_OK:
		return "ok";
	case GAME_EARG:
		return "invalid game setup or argument";
	case GAME_EPHASE:
		return "the game is not waiting for that";
	case GAME_EILLEGAL:
		return "not a legal choice";
	case GAME_EOVER:
		return "the game is over";
	default:
		return "unknown error";
	}
}

const struct game_ops *game_find(const char *name)
{
	for (size_t i = 0; i < sizeof(games) / sizeof(games[0]); i++)
		if (strcmp(games[i]->name, name) == 0)
			return games[i];
	return NULL;
}

const struct game_policy *game_policy_find(const struct game_ops *ops, const char *name)
{
	for (const struct game_policy *p = ops->policies; p->name; p++)
		if (strcmp(p->name, name) == 0)
			return p;
	return NULL;
}

long game_play(const struct game_ops *ops, void *state, const struct game_policy *const *policy,
               struct rng *rng)
{
	struct game_step step;
	long applied = 0;

	for (;;) {
		int value, rc;

		ops->step(state, &step);
		if (step.node == GAME_NODE_OVER)
			return applied;
		if (step.node == GAME_NODE_CHANCE)
			value = (int)rng_below(rng, (uint32_t)step.count);
		else
			value = policy[step.seat]->choose(state, &step, rng);
		rc = ops->apply(state, value, NULL);
		assert(rc == GAME_OK);
		(void)rc;
		applied++;
	}
}
