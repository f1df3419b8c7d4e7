#include "rlyeh/play.h"

#include <string.h>

/* The registry: one line per game. */
const struct play_game *const play_games[] = {
	&cdplay,
	NULL,
};

const struct play_game *play_find(const char *name)
{
	for (int i = 0; play_games[i]; i++)
		if (strcmp(play_games[i]->ops->name, name) == 0)
			return play_games[i];
	return NULL;
}
