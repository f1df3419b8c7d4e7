/* CTHULHU!!! hands kept secret (C14, C4): nothing the table shows to
 * everyone may depend on which cards a hand holds. Whole games are played
 * twice at the table (ctplay's hooks, as the bot calls them): once as
 * dealt, once with every card that is not an Automatic one dealt as
 * another such card (a fixed permutation of the card ids, so hand sizes,
 * piles and everything public stay the same while the hands differ), with
 * every seat following the same public-only strategy (never a card: pass,
 * sanctify when offered, defaults otherwise; Automatic cards, which are
 * the same in both games, are played as chosen). Wherever both games stood
 * in the same public position, what the table then publishes must be the
 * same: the narration, the table message (title, text, fields, buttons
 * with ids, labels, styles and whether disabled, prompts, select menu), the
 * wait of the move, whether the player is called and with which words, and
 * the picture (its PNG and its text form). Games that follow the first
 * rules (revision 0) fail this check, which shows it can fail. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rlyeh/ctgame.h"
#include "rlyeh/ctpicture.h"
#include "rlyeh/ctplay.h"
#include "rlyeh/i18n.h"
#include "rlyeh/rng.h"

#define BASE_MS 120000
#define OUT_MAX (64 * 1024)
#define NODES   6000 /* publish points of one game, at most */
#define ROUNDS  40   /* the round cap (C19) */

/* One of the two games: its state, dice, card permutation and table. */
struct run {
	struct ctgame g;
	struct rng rng;
	int sigma[CTGAME_CARDS], inverse[CTGAME_CARDS];
	struct store_game row;
	struct store_member m[CTGAME_MAX];
	struct play_ctx c;
	char out[OUT_MAX]; /* what the table published at the last point */
	size_t len;
};

static void put(struct run *r, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (r->len >= sizeof(r->out) - 1)
		return;
	va_start(ap, fmt);
	n = vsnprintf(r->out + r->len, sizeof(r->out) - r->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		r->len +=
		    (size_t)n < sizeof(r->out) - r->len ? (size_t)n : sizeof(r->out) - r->len - 1;
}

/* The permutation: Automatic cards stay, the others are rotated by
 * `shift` among themselves (identity for shift 0). */
static void permute(struct run *r, int shift)
{
	int other[CTGAME_CARDS], n = 0;

	for (int c = 0; c < CTGAME_CARDS; c++) {
		r->sigma[c] = c;
		if (ctgame_card(ctgame_card_kind(c))->category != CC_AUTOMATIC)
			other[n++] = c;
	}
	for (int i = 0; i < n; i++)
		r->sigma[other[i]] = other[(i + shift) % n];
	for (int c = 0; c < CTGAME_CARDS; c++)
		r->inverse[r->sigma[c]] = c;
}

static void start(struct run *r, int players, uint64_t seed, int shift, int revision)
{
	struct game_setup setup = { .players = players, .rounds = ROUNDS, .revision = revision };

	memset(r, 0, sizeof(*r));
	assert_int_equal(ctgame_init(&r->g, &setup), GAME_OK);
	rng_seed(&r->rng, seed);
	permute(r, shift);
	r->row.id = 7;
	r->row.revision = revision;
	snprintf(r->row.game, sizeof(r->row.game), "cthulhu");
	snprintf(r->row.channel, sizeof(r->row.channel), "c1");
	for (int s = 0; s < players; s++) {
		snprintf(r->m[s].name, sizeof(r->m[s].name), "player%d", s);
		snprintf(r->m[s].player, sizeof(r->m[s].player), "u%d", s);
		r->m[s].place = -1;
	}
	r->c = (struct play_ctx){ .row = &r->row, .m = r->m, .nm = players, .lang = I18N_EN };
}

/* The value of a card drawn: the card the dealt game would draw at this
 * point with the same die, as this game's permutation maps it. */
static int card_value(const struct ctgame *g, const struct run *r, int v)
{
	int deck[CTGAME_CARDS], n = 0, want, k = 0;

	for (int c = 0; c < CTGAME_CARDS; c++)
		if (g->card_at[c] == CW_DECK)
			deck[n++] = r->inverse[c];
	for (int i = 1; i < n; i++) /* ascending ids of the dealt game */
		for (int j = i; j > 0 && deck[j - 1] > deck[j]; j--) {
			int t = deck[j];
			deck[j] = deck[j - 1];
			deck[j - 1] = t;
		}
	want = r->sigma[deck[v]];
	for (int c = 0; c < want; c++)
		k += g->card_at[c] == CW_DECK;
	return k;
}

static void put_msg(struct run *r, const struct msg *m)
{
	put(r, "title %s\ntext %s\n", m->title, m->text);
	for (int i = 0; i < m->nfields; i++)
		put(r, "field %s = %s\n", m->fields[i].name, m->fields[i].value);
	for (int i = 0; i < m->nbuttons; i++) {
		const struct msg_button *b = &m->buttons[i];
		put(r, "button %s [%s] style %d prompt %d disabled %d\n", b->id, b->label, b->style,
		    b->prompt, b->disabled);
	}
	for (int i = 0; i < m->nprompts; i++)
		put(r, "prompt %s / %s / %s / %d\n", m->prompts[i].title, m->prompts[i].label,
		    m->prompts[i].placeholder, m->prompts[i].max_len);
	if (msg_has_select(m)) {
		put(r, "select %s [%s]\n", m->select.id, m->select.placeholder);
		for (int i = 0; i < m->select.noptions; i++)
			put(r, "  option %s = %s (%s)\n", m->select.options[i].label,
			    m->select.options[i].value, m->select.options[i].description);
	}
	put(r, "audience %d kind %d call %s\n", m->audience, m->kind, m->call.user);
}

/* Runs the game on as the bot does (dice and draws, decisions the table
 * settles) up to the next decision it asks or the end, then writes to
 * r->out all that the table publishes there. */
static void advance(struct run *r, int picture)
{
	struct game_events ev;
	struct game_step st;
	char text[8192], alt[16384];
	struct text tx;
	struct msg_list l = { 0 };
	struct msg *m;
	unsigned char *png = NULL;
	size_t len = 0;
	int v;

	r->len = 0;
	text_init(&tx, text, sizeof(text));
	for (;;) {
		ctgame_step(&r->g, &st);
		if (st.node == GAME_NODE_OVER)
			break;
		if (st.node == GAME_NODE_CHANCE) {
			v = (int)rng_below(&r->rng, (uint32_t)st.count);
			if (st.kind == CTGAME_ROLL_CARD)
				v = card_value(&r->g, r, v);
		} else if (!ctplay.settle(&r->g, &r->c, &st, &v)) {
			break;
		} else {
			put(r, "settled %d\n", st.kind); /* made at once: public */
		}
		ev.n = 0;
		assert_int_equal(ctgame_apply(&r->g, v, &ev), GAME_OK);
		ctplay.narrate(&r->g, ev.ev, ev.n, &r->c, &tx);
	}
	put(r, "narration:\n%s", text);
	m = msg_add(&l, MSG_CHANNEL, NULL, MSG_TABLE);
	assert_non_null(m);
	ctplay.render(&r->g, &r->c, m);
	put_msg(r, m);
	msg_free(&l);
	if (st.node == GAME_NODE_CHOICE) {
		put(r, "wait %lld calls %d\n", (long long)ctplay.wait_ms(&r->g, &r->c, BASE_MS),
		    ctplay.calls(&r->g, &r->c, &st));
		text_init(&tx, text, sizeof(text));
		if (ctplay.calls(&r->g, &r->c, &st) && ctplay.awaits &&
		    ctplay.awaits(&r->g, &r->c, ctplay.member_of(&r->g, st.seat), &tx))
			put(r, "call %s\n", text);
	}
	if (picture && ctplay.picture(&r->g, &r->c, &png, &len, alt, sizeof(alt)) == 0) {
		uint64_t h = 0;
		for (size_t i = 0; i < len; i++)
			h = rng_mix(h ^ png[i]);
		put(r, "picture %zu bytes, digest %016llx\n%s\n", len, (unsigned long long)h, alt);
		free(png);
	}
}

/* The public-only strategy: never a card. */
static int decide(const struct run *r)
{
	struct ctgame_option o[CTGAME_OPTIONS];
	struct game_step st;
	int n;

	ctgame_step(&r->g, &st);
	n = ctgame_options(&r->g, o);
	switch (st.kind) {
	case CA_PLAY:
		for (int i = 0; i < n; i++)
			if (o[i].what == CO_SANCTIFY)
				return i;
		return 0; /* pass */
	case CA_AUTOMATIC:
		return 0; /* the same Automatic cards in both games */
	case CA_DISCARD:
		for (int i = 0; i < n; i++)
			if (o[i].what == CO_STOP)
				return i;
		return -1; /* a forced discard would name a card */
	case CA_FAILED:
		return ctgame_default(&r->g); /* BP3 without a card */
	default: /* tiles, walks, weapons, enemies: as the baseline player */
		return ctgame_policy_baseline(&r->g, &st, NULL);
	}
}

/* The game as everyone sees it: the state with the cards in hands and in
 * the deck unknown (their numbers stay: hand sizes, the pile's size). */
static void public_view(const struct run *r, struct ctgame *out)
{
	*out = r->g;
	for (int c = 0; c < CTGAME_CARDS; c++) {
		int at = r->g.card_at[r->sigma[c]];
		out->card_at[c] = (uint8_t)(at == CW_DECK || (at & 0xf0) == CW_HAND ? 0xff : at);
		out->uses[c] = r->g.uses[r->sigma[c]];
	}
}

/* Prints where the two outputs part: the first differing line and the
 * next two of each. */
static void show_difference(int players, uint64_t seed, int k, const struct run *a,
                            const struct run *b)
{
	size_t i = 0, from;

	while (i < a->len && i < b->len && a->out[i] == b->out[i])
		i++;
	from = i;
	while (from > 0 && a->out[from - 1] != '\n')
		from--;
	print_message("seed %llu, %d players, point %d: the outputs differ\n",
	              (unsigned long long)seed, players, k);
	for (int side = 0; side < 2; side++) {
		const char *p = (side ? b->out : a->out) + from;
		print_message("--- %s:\n", side ? "other hands" : "as dealt");
		for (int lines = 0; *p && lines < 3; lines++) {
			size_t n = strcspn(p, "\n");
			print_message("%.*s\n", (int)n, p);
			p += n + (p[n] ? 1 : 0);
		}
	}
}

/* Plays one pair of games, the picture compared at every `pictures`-th
 * point; returns the number of the first publish point whose outputs
 * differ after the same public position (and prints both outputs when
 * verbose), -1 when the games ended without one, -2 when they went apart
 * in public first. *points counts the points compared. */
static int play_pair(int players, uint64_t seed, int revision, int pictures, int *points,
                     int verbose)
{
	static struct run a, b;
	struct ctgame pa, pb;

	start(&a, players, seed, 0, revision);
	start(&b, players, seed, 1 + (int)(seed % 37), revision);
	for (int k = 0; k < NODES; k++) {
		int va, vb;
		advance(&a, k % pictures == 0);
		advance(&b, k % pictures == 0);
		if (a.len != b.len || memcmp(a.out, b.out, a.len) != 0) {
			if (verbose)
				show_difference(players, seed, k, &a, &b);
			return k;
		}
		(*points)++;
		public_view(&a, &pa);
		public_view(&b, &pb);
		if (memcmp(&pa, &pb, sizeof(pa)) != 0)
			return -2; /* the games went apart in public: nothing more to compare */
		if (a.g.end != CE_PLAYING)
			return -1;
		va = decide(&a);
		vb = decide(&b);
		if (va < 0 || vb < 0)
			return -2;
		assert_int_equal(ctgame_apply(&a.g, va, NULL), GAME_OK);
		assert_int_equal(ctgame_apply(&b.g, vb, NULL), GAME_OK);
	}
	return -2;
}

static void test_cthulhu_privacy(void **state)
{
	int points = 0;

	(void)state;
	for (uint64_t seed = 1; seed <= 6; seed++)
		for (int players = 3; players <= 4; players++)
			assert_int_equal(play_pair(players, seed, CTGAME_REV_SECRET,
			                           seed == 1 && players == 3 ? 3 : 60, &points, 1),
			                 -1);
	/* whole games were compared, not a few moves */
	assert_true(points > 12 * 150);
}

/* The first rules skip a decision that would offer no card: the table then
 * shows who holds one. The check above finds it. */
static void test_first_rules_leak(void **state)
{
	int points = 0, leaks = 0;

	(void)state;
	for (uint64_t seed = 1; seed <= 6; seed++)
		for (int players = 3; players <= 4; players++)
			leaks += play_pair(players, seed, 0, 1000000, &points, 0) >= 0;
	assert_true(leaks >= 6);
}

/* Checks the table's buttons at a failed roll (C11): "Spend n bullets",
 * disabled without n bullets and then picking no option, "Lose a heart &
 * reroll", and "Play a card" exactly when public facts leave a card
 * possible, the cards themselves never on the table. Returns 1 when the
 * Spend button was disabled, 0 when open. */
static int check_failed_roll(struct run *r, int *with_card)
{
	struct ctgame_option o[CTGAME_OPTIONS];
	struct msg_list l = { 0 };
	struct msg *m = msg_add(&l, MSG_CHANNEL, NULL, MSG_TABLE);
	const struct ctgame_player *p = &r->g.p[r->g.seat];
	int need = r->g.kill - r->g.ctotal, n = ctgame_options(&r->g, o), off = p->bullets < need;
	char spend[64], id[64];

	assert_non_null(m);
	ctplay.render(&r->g, &r->c, m);
	snprintf(spend, sizeof(spend), "Spend %d bullet%s", need, need == 1 ? "" : "s");
	assert_true(m->nbuttons >= 3);
	assert_string_equal(m->buttons[0].label, spend);
	assert_int_equal(m->buttons[0].disabled, off);
	snprintf(id, sizeof(id), "7:%d:pick:%d", r->row.moves, off ? 0 : 1);
	assert_string_equal(m->buttons[0].id, id);
	assert_int_equal(o[0].what, off ? CO_LOSE : CO_SPEND);
	assert_string_equal(m->buttons[1].label, "Lose a heart & reroll");
	assert_int_equal(m->buttons[1].disabled, 0);
	*with_card = ctgame_could_play(&r->g);
	assert_int_equal(strstr(m->buttons[2].id, ":hand:play") != NULL, *with_card);
	for (int i = 0; i < m->nbuttons; i++) /* no card's option is public */
		for (int k = 0; k < n; k++) {
			snprintf(id, sizeof(id), "7:%d:pick:%d", r->row.moves, k + 1);
			if (o[k].what == CO_CARD)
				assert_string_not_equal(m->buttons[i].id, id);
		}
	msg_free(&l);
	return off;
}

static void test_failed_roll_buttons(void **state)
{
	static struct run r;
	int seen[2][2] = { { 0 } }, card;

	(void)state;
	for (uint64_t seed = 1; seed <= 40; seed++) {
		start(&r, 3, seed, 0, CTGAME_REV_SECRET);
		for (int k = 0; k < NODES && r.g.end == CE_PLAYING; k++) {
			struct game_step st;
			advance(&r, 0);
			ctgame_step(&r.g, &st);
			if (st.node != GAME_NODE_CHOICE)
				break;
			if (st.kind == CA_FAILED) {
				int off = check_failed_roll(&r, &card);
				seen[off][card]++;
			}
			assert_int_equal(
			    ctgame_apply(&r.g, ctgame_policy_baseline(&r.g, &st, NULL), NULL),
			    GAME_OK);
		}
	}
	/* Spend open with and without "Play a card", and disabled; disabled
	 * without a possible card, losing a heart is all there is: not asked */
	assert_true(seen[0][0] && seen[0][1] && seen[1][1]);
	assert_int_equal(seen[1][0], 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cthulhu_privacy),
		cmocka_unit_test(test_first_rules_leak),
		cmocka_unit_test(test_failed_roll_buttons),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);

	ctpicture_cleanup(); /* the font caches of the pictures, for the leak checker */
	return rc;
}
