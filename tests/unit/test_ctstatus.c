/* The board game's table message and prompts: every play point (§6.3) is
 * named in the line that asks, in the call (awaits) and in the Pass label,
 * with a text of its own per moment, in English and Dutch; each seat's
 * status line carries its pawn's colour and number and its VP, and the
 * effects in force are listed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rlyeh/ctgame.h"
#include "rlyeh/ctnames.h"
#include "rlyeh/cttext.h"
#include "rlyeh/i18n.h"
#include "rlyeh/msg.h"
#include "rlyeh/play.h"

static const char *const names[CTGAME_MAX] = { "alice", "bob", "carol", "dave", "erin", "frank" };

struct table {
	struct store_game row;
	struct store_member m[CTGAME_MAX];
	struct play_ctx c;
};

static void table_init(struct table *t, int n, int lang)
{
	memset(t, 0, sizeof(*t));
	t->row.id = 1;
	for (int i = 0; i < n; i++)
		snprintf(t->m[i].name, sizeof(t->m[i].name), "%s", names[i]);
	t->c.row = &t->row;
	t->c.m = t->m;
	t->c.nm = n;
	t->c.lang = lang;
}

/* What a moment's asking line must say, besides the seat's name. */
static const char *marker(int moment, int lang)
{
	static const char *const en[] = { NULL,   "(PP1",  "(PP2",
		                          "(PP3", "(PP4)", "(PP4, before",
		                          "(PP5", "(CS",   "sanity check is due",
		                          "(RW)" };
	static const char *const nl[] = { NULL,   "(PP1",  "(PP2",
		                          "(PP3", "(PP4)", "(PP4, voor",
		                          "(PP5", "(CS",   "verstandsproef op",
		                          "(RW)" };
	return (lang == I18N_NL ? nl : en)[moment];
}

/* Seeded 4-seat games: at each play point, the table message, the call and
 * the Pass label name the moment; the texts of different moments differ. */
static void test_play_points_named(void **state)
{
	(void)state;
	for (int lang = 0; lang < I18N_LANGS; lang++) {
		char seen[CM_RW + 1][512], pass[CM_RW + 1][128];
		int found = 0;
		memset(seen, 0, sizeof(seen));
		memset(pass, 0, sizeof(pass));
		for (uint64_t seed = 1; seed <= 30 && found != 0x3fe; seed++) {
			struct ctgame g;
			struct game_setup setup = { .players = 4, .rounds = 200 };
			struct rng rng;
			struct table t;
			const struct game_policy *base = game_policy_find(&ctgame_ops, "baseline");
			rng_seed(&rng, seed);
			table_init(&t, 4, lang);
			assert_int_equal(ctgame_init(&g, &setup), GAME_OK);
			for (int s = 0; s < 4000; s++) {
				struct game_step st;
				ctgame_step(&g, &st);
				if (st.node == GAME_NODE_OVER)
					break;
				if (st.node == GAME_NODE_CHOICE && st.kind == CA_PLAY) {
					int m = ctgame_moment(&g);
					struct msg *msg = calloc(1, sizeof(*msg));
					char call[512], label[128];
					struct text tx;
					struct ctgame_option o[CTGAME_OPTIONS];
					assert_non_null(msg);
					assert_true(m >= CM_PP1 && m <= CM_RW);
					ctplay.render(&g, &t.c, msg);
					if (!strstr(msg->text, marker(m, lang)))
						fail_msg("moment %d (%s): no \"%s\" in\n%s", m,
						         i18n_code(lang), marker(m, lang),
						         msg->text);
					text_init(&tx, call, sizeof(call));
					assert_int_equal(ctplay.awaits(&g, &t.c, st.seat, &tx), 1);
					if (!strstr(call, marker(m, lang)))
						fail_msg("call of moment %d: %s", m, call);
					/* whole in a call (" — " before it) */
					assert_true(strlen(call) + 6 < MSG_CALL_TEXT);
					assert_int_equal(ctgame_options(&g, o) > 0, 1);
					assert_int_equal(o[0].what, CO_PASS);
					text_init(&tx, label, sizeof(label));
					cttext_option(&g, &st, &o[0], names, lang, &tx);
					snprintf(pass[m], sizeof(pass[m]), "%s", label);
					{
						/* the asking line: from the marker back to its
						 * line's start */
						const char *start =
						    strstr(msg->text, marker(m, lang));
						const char *end = strchr(start, '\n');
						while (start > msg->text && start[-1] != '\n')
							start--;
						snprintf(
						    seen[m], sizeof(seen[m]), "%.*s",
						    (int)(end ? end - start : (long)strlen(start)),
						    start);
					}
					found |= 1 << m;
					free(msg);
				}
				assert_int_equal(
				    ctgame_apply(&g,
				                 st.node == GAME_NODE_CHANCE
				                     ? (int)rng_below(&rng, (uint32_t)st.count)
				                     : base->choose(&g, &st, &rng),
				                 NULL),
				    GAME_OK);
			}
		}
		/* every play point but the rare due check (B21) is met */
		for (int m = CM_PP1; m <= CM_RW; m++)
			if (m != CM_CHECK && !(found >> m & 1))
				fail_msg("moment %d never met (%s)", m, i18n_code(lang));
		for (int a = CM_PP1; a <= CM_RW; a++)
			for (int b = a + 1; b <= CM_RW; b++) {
				if (!(found >> a & 1) || !(found >> b & 1))
					continue;
				if (!strcmp(pass[a], pass[b]))
					fail_msg("moments %d and %d pass alike: %s", a, b, pass[a]);
			}
		print_message("%s: PP1 \"%s\" · PP4 \"%s\" · RW \"%s\"\n", i18n_code(lang),
		              seen[CM_PP1], seen[CM_PP4_END], seen[CM_RW]);
	}
}

/* The status lines: "▶ 🔴 1 alice: …" with the seat's VP, and the effects
 * in force listed by their cards' names, only while they are. */
static void test_status(void **state)
{
	(void)state;
	static const char *const discs[] = { "🔴 1 ",    "🔵 2 ",    "🟢 3 ",
		                             "🟠 4 ", "🟣 5 ", "🟤 6 " };
	int shown = 0;
	for (uint64_t seed = 1; seed <= 20; seed++) {
		struct ctgame g;
		struct game_setup setup = { .players = 6, .rounds = 200 };
		struct rng rng;
		struct table t;
		const struct game_policy *base = game_policy_find(&ctgame_ops, "baseline");
		rng_seed(&rng, seed);
		table_init(&t, 6, seed % 2 ? I18N_EN : I18N_NL);
		assert_int_equal(ctgame_init(&g, &setup), GAME_OK);
		for (int s = 0; s < 3000; s++) {
			struct game_step st;
			int fx = ctgame_effects(&g);
			ctgame_step(&g, &st);
			if (st.node == GAME_NODE_OVER)
				break;
			if (st.node == GAME_NODE_CHOICE && (fx || s % 97 == 0)) {
				struct msg *msg = calloc(1, sizeof(*msg));
				const char *fxline = i18n_get(t.c.lang, S_CT_EFFECTS);
				char prefix[64];
				assert_non_null(msg);
				ctplay.render(&g, &t.c, msg);
				for (int k = 0; k < 6; k++) {
					char want[128], vp[32];
					const char *at;
					snprintf(want, sizeof(want), "%s%s: ", discs[k], names[k]);
					at = strstr(msg->text, want);
					if (!at)
						fail_msg("no \"%s\" in\n%s", want, msg->text);
					if (g.p[k].out)
						continue;
					snprintf(vp, sizeof(vp), " · %d %s ", ctgame_vp(&g, k),
					         t.c.lang == I18N_NL ? "OP" : "VP");
					if (!strstr(at, vp) || strstr(at, vp) > strchr(at, '\n'))
						fail_msg("no \"%s\" in %s's line:\n%s", vp,
						         names[k], msg->text);
				}
				snprintf(prefix, sizeof(prefix), "%.*s", (int)strcspn(fxline, "{"),
				         fxline);
				assert_int_equal(strstr(msg->text, prefix) != NULL, fx != 0);
				if (fx & CX_JAMMED)
					assert_non_null(
					    strstr(msg->text, ctnames_card(CK_JAMMED, t.c.lang)));
				if (fx & CX_ELDER)
					assert_non_null(strstr(
					    msg->text, ctnames_card(CK_ELDERSIGN, t.c.lang)));
				shown |= fx;
				free(msg);
			}
			assert_int_equal(ctgame_apply(&g,
			                              st.node == GAME_NODE_CHANCE
			                                  ? (int)rng_below(&rng, (uint32_t)st.count)
			                                  : base->choose(&g, &st, &rng),
			                              NULL),
			                 GAME_OK);
		}
	}
	assert_true(shown & CX_JAMMED);
	assert_true(shown & CX_NO_MOVE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_play_points_named),
		cmocka_unit_test(test_status),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
