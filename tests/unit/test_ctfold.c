/* The board game's folded narration: seeded 4-seat baseline games told a
 * command at a time (seat 0 a person, the others computers), measured
 * against the table message's budget, with every die value, card, relic,
 * tile and figure move kept; a folded golden transcript in both languages.
 * CTTEXT_UPDATE=1 rewrites the golden (GOLDEN_DIR/cthulhu). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "golden.h"

#include "rlyeh/ctfold.h"
#include "rlyeh/ctgame.h"
#include "rlyeh/ctnames.h"
#include "rlyeh/cttext.h"
#include "rlyeh/i18n.h"

#define TRANSCRIPT_MAX (1u << 20)
#define BATCH_MAX      4096
#define BUDGET         1800 /* a live table message's content (Discord: 2000), less a call */
#define TURN_MAX       1600 /* a whole turn's folded narration, at most */
#define ROUND_LINES    60   /* folded lines of a 4-seat round, at most on average */

static const char *const names[CTGAME_MAX] = { "alice", "bob", "carol", "dave", "erin", "frank" };

struct measure {
	long turns, rounds, lines, bytes, plain_lines, plain_bytes;
	size_t turn_max, command_max, plain_turn_max, plain_command_max;
	long commands, over, plain_over; /* commands, those over the budget */
};

static int count_lines(const char *s)
{
	int n = 0;
	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* The events of batch ev[0..n-1] as cttext tells them one a line. */
static void plain(const struct ctgame *g, const struct game_event *ev, int n, int lang,
                  struct text *out)
{
	for (int i = 0; i < n; i++) {
		size_t before = out->len;
		cttext_event(g, &ev[i], names, lang, out);
		if (out->len > before)
			text_add(out, "\n");
	}
}

/* 1 when a command ends before decision st: a decision a person makes
 * (not the enemies' moves nor a weapon, which the table settles); with
 * `people` 1 only seat 0 is a person (the computers' turns are told with
 * the command before), with `people` 4 every seat is. */
static int asks(const struct ctgame *g, const struct game_step *st, int people)
{
	if (st->node != GAME_NODE_CHOICE || ctgame_enemy_move(g) || st->kind == CA_WEAPON)
		return 0;
	return people == 4 || st->seat == 0;
}

/* Plays a seeded 4-seat baseline game. The events are gathered a command
 * at a time (asks), and the folded text of each is appended to out when
 * not NULL. Turn sizes count the folded text of each turn's events alone. */
static void play(uint64_t seed, int steps, int lang, int people, struct text *out,
                 struct measure *m)
{
	struct ctgame g;
	struct game_setup setup = { .players = 4, .rounds = 200 };
	struct rng rng;
	struct game_step st;
	struct game_events ev;
	const struct game_policy *base = game_policy_find(&ctgame_ops, "baseline");
	static struct game_event batch[BATCH_MAX], turn[BATCH_MAX];
	static char buf[1 << 16], tbuf[1 << 16];
	int nb = 0, nt = 0;
	struct text t;

	rng_seed(&rng, seed);
	assert_int_equal(ctgame_init(&g, &setup), GAME_OK);
	for (int s = 0; s <= steps; s++) {
		int v, over;
		ctgame_step(&g, &st);
		over = st.node == GAME_NODE_OVER || s == steps;
		if (nb && (over || asks(&g, &st, people))) {
			text_init(&t, buf, sizeof(buf));
			ctfold_tell(&g, batch, nb, names, lang, &t);
			assert_false(t.truncated);
			if (t.len > m->command_max)
				m->command_max = t.len;
			m->commands++;
			m->over += t.len > BUDGET;
			m->lines += count_lines(buf);
			m->bytes += (long)t.len;
			if (out) {
				text_add(out, buf);
				text_add(out, "--\n");
			}
			text_init(&t, buf, sizeof(buf));
			plain(&g, batch, nb, lang, &t);
			if (t.len > m->plain_command_max)
				m->plain_command_max = t.len;
			m->plain_over += t.len > BUDGET;
			m->plain_lines += count_lines(buf);
			m->plain_bytes += (long)t.len;
			nb = 0;
		}
		if (over)
			break;
		if (st.node == GAME_NODE_CHANCE)
			v = (int)rng_below(&rng, (uint32_t)st.count);
		else
			v = base->choose(&g, &st, &rng);
		ev.n = 0;
		assert_int_equal(ctgame_apply(&g, v, &ev), GAME_OK);
		for (int i = 0; i < ev.n; i++) {
			if (ev.ev[i].kind == CV_TURN && nt) {
				text_init(&t, tbuf, sizeof(tbuf));
				ctfold_tell(&g, turn, nt, names, lang, &t);
				if (t.len > m->turn_max)
					m->turn_max = t.len;
				text_init(&t, tbuf, sizeof(tbuf));
				plain(&g, turn, nt, lang, &t);
				if (t.len > m->plain_turn_max)
					m->plain_turn_max = t.len;
				m->turns++;
				nt = 0;
			}
			assert_true(nb < BATCH_MAX && nt < BATCH_MAX);
			batch[nb++] = ev.ev[i];
			turn[nt++] = ev.ev[i];
		}
	}
	m->rounds += g.round;
}

/* Seeded 4-seat games stay within the bounds: at a table of four people no
 * command's narration over the live message's budget; no turn's over
 * TURN_MAX; fewer lines a round than ROUND_LINES on average. With one
 * person and three computers, whose three turns are told with one command,
 * the share of commands over the budget is measured (and kept under 5 %). */
static void test_sizes(void **state)
{
	(void)state;
	for (int lang = 0; lang < I18N_LANGS; lang++)
		for (int people = 4; people >= 1; people -= 3) {
			struct measure m = { 0 };
			for (uint64_t seed = 1; seed <= 40; seed++)
				play(seed, 4000, lang, people, NULL, &m);
			print_message(
			    "%s, %d %s: %ld turns, %ld rounds; lines a round %.1f "
			    "(unfolded %.1f); bytes a turn %.0f (unfolded %.0f), the "
			    "longest turn %zu (unfolded %zu); the longest command %zu "
			    "(unfolded %zu), %ld of %ld commands over %d (unfolded %ld)\n",
			    i18n_code(lang), people, people == 1 ? "person" : "people", m.turns,
			    m.rounds, (double)m.lines / (double)m.rounds,
			    (double)m.plain_lines / (double)m.rounds,
			    (double)m.bytes / (double)m.turns,
			    (double)m.plain_bytes / (double)m.turns, m.turn_max, m.plain_turn_max,
			    m.command_max, m.plain_command_max, m.over, m.commands, BUDGET,
			    m.plain_over);
			assert_true(m.turn_max <= TURN_MAX);
			assert_true(m.lines < ROUND_LINES * m.rounds);
			if (people == 4)
				assert_true(m.command_max <= BUDGET);
			else
				assert_true(m.over * 20 <= m.commands); /* 5 % at most */
		}
}

/* The transcript against tests/golden/cthulhu/name (CTTEXT_UPDATE rewrites it). */
static void golden(const char *name, const char *got)
{
	golden_check("cthulhu", name, got, "CTTEXT_UPDATE", TRANSCRIPT_MAX);
}

/* The folded narration of a seeded game, command by command ("--" between
 * them), in both languages. */
static void test_folded_transcripts(void **state)
{
	(void)state;
	char *buf = malloc(TRANSCRIPT_MAX);
	struct text t;
	struct measure m = { 0 };
	assert_non_null(buf);
	for (int lang = 0; lang < I18N_LANGS; lang++) {
		char name[64];
		text_init(&t, buf, TRANSCRIPT_MAX);
		play(11, 1500, lang, 1, &t, &m);
		assert_false(t.truncated);
		snprintf(name, sizeof name, "folded.%s.txt", i18n_code(lang));
		golden(name, buf);
	}
	free(buf);
}

/* 1 when s holds w as a whole token (not within a longer number). */
static int has_number(const char *s, const char *w)
{
	size_t n = strlen(w);
	for (const char *p = s; (p = strstr(p, w)); p++) {
		int before = p > s && (p[-1] >= '0' && p[-1] <= '9');
		int after = p[n] >= '0' && p[n] <= '9';
		if (!before && !after)
			return 1;
	}
	return 0;
}

/* Whatever a player needs stays: every die value in order, every card
 * played, relic taken or lost, tile placed and figure moved of a fold is
 * in its text. */
static void test_nothing_lost(void **state)
{
	(void)state;
	struct ctgame g;
	struct game_setup setup = { .players = 4, .rounds = 200 };
	struct rng rng;
	struct game_step st;
	struct game_events ev;
	const struct game_policy *base = game_policy_find(&ctgame_ops, "baseline");
	static struct game_event turn[BATCH_MAX];
	static char buf[1 << 16];
	int nt = 0, checked = 0;

	rng_seed(&rng, 5);
	assert_int_equal(ctgame_init(&g, &setup), GAME_OK);
	for (int s = 0; s < 3000; s++) {
		ctgame_step(&g, &st);
		if (st.node == GAME_NODE_OVER)
			break;
		ev.n = 0;
		assert_int_equal(ctgame_apply(&g,
		                              st.node == GAME_NODE_CHANCE
		                                  ? (int)rng_below(&rng, (uint32_t)st.count)
		                                  : base->choose(&g, &st, &rng),
		                              &ev),
		                 GAME_OK);
		for (int i = 0; i < ev.n; i++) {
			if (ev.ev[i].kind == CV_TURN && nt) {
				struct text t;
				const char *at;
				text_init(&t, buf, sizeof(buf));
				ctfold_tell(&g, turn, nt, names, I18N_EN, &t);
				at = buf;
				for (int k = 0; k < nt; k++) {
					const struct game_event *e = &turn[k];
					char want[128], a[16], b[16];
					const char *hit;
					want[0] = '\0';
					if (e->kind == CV_ROLL)
						snprintf(want, sizeof(want), "%d", e->value);
					else if (e->kind == CV_CARD || e->kind == CV_ITEM ||
					         e->kind == CV_DISCARD)
						snprintf(want, sizeof(want), "%s",
						         ctnames_card(ctgame_card_kind(e->target),
						                      I18N_EN));
					else if (e->kind == CV_RELIC || e->kind == CV_RELIC_LOST)
						snprintf(want, sizeof(want), "%s",
						         ctnames_type(e->target / 16, I18N_EN));
					else if (e->kind == CV_PLACE)
						snprintf(want, sizeof(want), "(%d,%d)",
						         (int8_t)(e->value & 0xff),
						         (int8_t)((e->value >> 8) & 0xff));
					else if (e->kind == CV_FIGURE) {
						cttext_square(&g, e->target, a, sizeof(a));
						cttext_square(&g, e->value, b, sizeof(b));
						snprintf(want, sizeof(want), "%s → %s", a, b);
					} else if (e->kind == CV_MOVE)
						cttext_square(&g, e->target, want, sizeof(want));
					if (!want[0])
						continue;
					hit = strstr(at, want);
					if (e->kind == CV_ROLL) /* in order, as a number */
						while (hit && !has_number(hit, want))
							hit = strstr(hit + 1, want);
					if (!hit)
						fail_msg("event %d (kind %d) \"%s\" not in order "
						         "in:\n%s",
						         k, e->kind, want, buf);
					if (e->kind == CV_ROLL || e->kind == CV_MOVE)
						at = hit + 1;
					checked++;
				}
				nt = 0;
			}
			assert_true(nt < BATCH_MAX);
			turn[nt++] = ev.ev[i];
		}
	}
	assert_true(checked > 500);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_folded_transcripts),
		cmocka_unit_test(test_nothing_lost),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
