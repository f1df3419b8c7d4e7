#include "rlyeh/play.h"

#include <string.h>

/* The registry: one line per game. */
const struct play_game *const play_games[] = {
	&cdplay,
	&esplay,
	&ctplay,
	NULL,
};

const struct play_game *play_find(const char *name)
{
	for (int i = 0; play_games[i]; i++)
		if (strcmp(play_games[i]->ops->name, name) == 0)
			return play_games[i];
	return NULL;
}

/* The n-th distinct action name's first definition, in registry order. */
static const struct play_action *nth_action(int n)
{
	int seen = 0;

	for (int g = 0; play_games[g]; g++) {
		for (int a = 0; a < play_games[g]->nactions; a++) {
			const struct play_action *act = &play_games[g]->actions[a];
			int first = 1;
			for (int h = 0; h <= g && first; h++)
				for (int b = 0; b < (h == g ? a : play_games[h]->nactions); b++)
					if (strcmp(play_games[h]->actions[b].name, act->name) == 0)
						first = 0;
			if (first && seen++ == n)
				return act;
		}
	}
	return NULL;
}

const struct play_action *play_action_at(int i)
{
	return i >= 0 && i < PLAY_ACTIONS_MAX ? nth_action(i) : NULL;
}

int play_action_index(const char *name)
{
	const struct play_action *a;

	for (int i = 0; (a = play_action_at(i)); i++)
		if (strcmp(a->name, name) == 0)
			return i;
	return -1;
}

int play_log_init(const struct play_game *game, const struct store_game *row, int nm, void *state)
{
	struct game_setup setup;

	game->setup(row, nm, &setup);
	setup.first = row->first;
	return game->ops->init(state, &setup);
}

int play_log_apply(const struct play_game *game, void *state, const struct store_event *e,
                   struct game_events *ev)
{
	int rc;

	if (ev)
		ev->n = 0;
	if (strcmp(e->kind, "leave") == 0 && e->value >= 0 && game->leave)
		rc = game->leave(state, e->value, ev);
	else if (strcmp(e->kind, "roll") == 0 || strcmp(e->kind, "choice") == 0)
		rc = game->ops->apply(state, e->value, ev);
	else
		return 0;
	return rc == GAME_OK ? 1 : -1;
}

int play_action_code(const struct play_game *game, const struct cmd *cmd)
{
	const struct play_action *a;

	if (cmd->kind != CMD_ACTION || !(a = play_action_at(cmd->action)))
		return -1;
	for (int i = 0; i < game->nactions; i++)
		if (strcmp(game->actions[i].name, a->name) == 0)
			return game->actions[i].code;
	return -1;
}
