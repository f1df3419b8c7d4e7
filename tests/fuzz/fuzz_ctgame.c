/* Fuzzes the CTHULHU!!! board game engine with any sequence of values: the
 * first byte picks the table (2 to 6 seats), then every two bytes are one
 * value. A value with the high bit set is applied as it is (usually out of
 * range); otherwise it is taken modulo the node's count, so the game goes
 * deep. A refused value must leave the state byte for byte as it was; an
 * accepted one must keep every invariant of §16. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rlyeh/ctgame.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define VALUES_MAX 4096

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ctgame g, before;
	struct game_setup setup = { .rounds = 30 };
	struct game_step st;

	if (size < 1)
		return 0;
	setup.players = CTGAME_MIN + data[0] % (CTGAME_MAX - CTGAME_MIN + 1);
	if (ctgame_init(&g, &setup) != GAME_OK)
		abort();
	for (size_t i = 1; i + 1 < size && i / 2 < VALUES_MAX; i += 2) {
		int raw = data[i] | data[i + 1] << 8, v, rc;
		ctgame_step(&g, &st);
		if (st.node == GAME_NODE_OVER) {
			if (ctgame_apply(&g, 0, NULL) != GAME_EOVER)
				abort();
			break;
		}
		v = raw & 0x8000 ? (int16_t)raw : (raw % st.count);
		before = g;
		rc = ctgame_apply(&g, v, NULL);
		if (rc == GAME_OK) {
			if (v < 0 || v >= st.count || ctgame_check(&g, NULL, 0) != 0)
				abort();
		} else if (rc != GAME_EILLEGAL || memcmp(&before, &g, sizeof g) != 0 ||
		           (v >= 0 && v < st.count)) {
			abort();
		}
	}
	return 0;
}
