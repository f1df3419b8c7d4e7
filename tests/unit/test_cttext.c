/* The board game in words: every event and every option label of seeded
 * games in English and Dutch, against golden transcripts; C6's tile label
 * and C12's enemy move lines in their exact form. CTTEXT_UPDATE=1 rewrites
 * the goldens (GOLDEN_DIR/cthulhu). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "golden.h"

#include "rlyeh/ctgame.h"
#include "rlyeh/cttext.h"
#include "rlyeh/i18n.h"

#define TRANSCRIPT_MAX (1u << 20)

static const char *const names[CTGAME_MAX] = { "alice", "bob", "carol", "dave", "erin", "frank" };

/* Plays a seeded 3-seat baseline game for `steps` transitions, writing every
 * choice's option labels and every event's line into out. */
static void transcript(uint64_t seed, int steps, int lang, struct text *out)
{
	struct ctgame g;
	struct game_setup setup = { .players = 3, .rounds = 200 };
	struct rng rng;
	struct game_step st;
	struct game_events ev;
	struct ctgame_option o[CTGAME_OPTIONS];
	const struct game_policy *base = game_policy_find(&ctgame_ops, "baseline");

	rng_seed(&rng, seed);
	assert_int_equal(ctgame_init(&g, &setup), GAME_OK);
	for (int t = 0; t < steps; t++) {
		int v;
		ctgame_step(&g, &st);
		if (st.node == GAME_NODE_OVER)
			break;
		if (st.node == GAME_NODE_CHANCE) {
			v = (int)rng_below(&rng, (uint32_t)st.count);
		} else {
			int n = ctgame_options(&g, o);
			v = base->choose(&g, &st, &rng);
			text_addf(out, "? %s:", names[st.seat]);
			for (int i = 0; i < n && i < 30; i++) {
				text_add(out, i == v ? " [*" : " [");
				cttext_option(&g, &st, &o[i], names, lang, out);
				text_add(out, "]");
			}
			text_add(out, "\n");
		}
		ev.n = 0;
		assert_int_equal(ctgame_apply(&g, v, &ev), GAME_OK);
		for (int i = 0; i < ev.n; i++) {
			size_t before = out->len;
			cttext_event(&g, &ev.ev[i], names, lang, out);
			if (out->len > before)
				text_add(out, "\n");
			if (ev.ev[i].kind != CV_TURN)
				continue;
			for (int s = 0; s < g.n; s++) {
				text_addf(out, "  %s: ", names[s]);
				cttext_seat(&g, s, lang, out);
				text_add(out, "\n");
			}
			text_add(out, "  ");
			cttext_piles(&g, lang, out);
			text_add(out, "\n");
		}
	}
	assert_false(out->truncated);
}

/* The transcript against tests/golden/cthulhu/name (CTTEXT_UPDATE rewrites it). */
static void golden(const char *name, const char *got)
{
	golden_check("cthulhu", name, got, "CTTEXT_UPDATE", TRANSCRIPT_MAX);
}

static void test_transcripts(void **state)
{
	(void)state;
	char *buf = malloc(TRANSCRIPT_MAX);
	struct text t;
	assert_non_null(buf);
	for (int lang = 0; lang < I18N_LANGS; lang++) {
		char name[64];
		text_init(&t, buf, TRANSCRIPT_MAX);
		transcript(11, 900, lang, &t);
		snprintf(name, sizeof name, "transcript.%s.txt", i18n_code(lang));
		golden(name, buf);
	}
	free(buf);
}

/* Every event kind is told in both languages. */
static void test_every_event_told(void **state)
{
	(void)state;
	struct ctgame g;
	struct game_setup setup = { .players = 3 };
	assert_int_equal(ctgame_init(&g, &setup), GAME_OK);
	for (int kind = CV_DEALER; kind <= CV_END; kind++)
		for (int lang = 0; lang < I18N_LANGS; lang++) {
			char buf[512];
			struct text t;
			struct game_event e = { (int16_t)kind, 1, CTGAME_CHURCH_SQ, 2 };
			if (kind == CV_ROLL)
				e.target = CD_COMBAT;
			if (kind == CV_DEALER)
				e.target = 2;
			if (kind == CV_TILE_DRAW || kind == CV_PLACE || kind == CV_SANCTIFY)
				e.target = 26;
			if (kind == CV_END)
				e = (struct game_event){ CV_END, -1, CE_SAVED, 2 };
			text_init(&t, buf, sizeof buf);
			cttext_event(&g, &e, names, lang, &t);
			if (t.len == 0 || strchr(buf, '{') || strchr(buf, '?'))
				fail_msg("event kind %d in %s: \"%s\"", kind, i18n_code(lang), buf);
		}
}

/* C6's label of a tile option and C12's line of an enemy move. */
static void test_c6_c12_forms(void **state)
{
	(void)state;
	struct ctgame g;
	struct game_setup setup = { .players = 2 };
	char buf[256];
	struct text t;
	struct ctgame_option o = { CO_TILE, 0 };
	struct game_event fig = { CV_FIGURE, CS_CULTIST, CTGAME_CHURCH_SQ, CTMAP_SETUP * 9 + 4 };
	assert_int_equal(ctgame_init(&g, &setup), GAME_OK);
	text_init(&t, buf, sizeof buf);
	cttext_event(&g, &fig, names, I18N_EN, &t);
	assert_string_equal(buf, "cultist 1,1 → 4,1");
	text_init(&t, buf, sizeof buf);
	cttext_event(&g, &fig, names, I18N_NL, &t);
	assert_string_equal(buf, "sektariër 1,1 → 4,1");
	/* reach a tile decision */
	struct rng rng;
	struct game_step st;
	rng_seed(&rng, 3);
	for (int guard = 0; guard < 10000; guard++) {
		ctgame_step(&g, &st);
		if (st.node == GAME_NODE_CHOICE && st.kind == CA_TILE)
			break;
		assert_int_equal(ctgame_apply(&g,
		                              st.node == GAME_NODE_CHANCE
		                                  ? (int)rng_below(&rng, (uint32_t)st.count)
		                                  : ctgame_policy_baseline(&g, &st, &rng),
		                              NULL),
		                 GAME_OK);
	}
	assert_int_equal(st.kind, CA_TILE);
	struct ctmap_option opt[CTMAP_OPTIONS_MAX];
	int tile, n = ctgame_tile_options(&g, &tile, opt);
	assert_true(n >= 2);
	for (int i = 0; i < n; i++) {
		char want[128], exits[16] = "";
		for (int s = 0; s < 4; s++)
			if (ctmap_edge(tile, opt[i].rot, s)) {
				if (exits[0])
					strcat(exits, " ");
				strcat(exits, (const char *[]){ "N", "E", "S", "W" }[s]);
			}
		snprintf(want, sizeof want, "#%d cell (%d,%d) %d° exits %s", i + 1, opt[i].tx,
		         opt[i].ty, opt[i].rot * 90, exits);
		o.arg = (int16_t)i;
		text_init(&t, buf, sizeof buf);
		cttext_option(&g, &st, &o, names, I18N_EN, &t);
		assert_string_equal(buf, want);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_transcripts),
		cmocka_unit_test(test_every_event_told),
		cmocka_unit_test(test_c6_c12_forms),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
