/* The texts of the board game's cards, tiles, relic types and square
 * kinds: each in both languages within its cap, with the rules' numbers
 * in it; and a typed name finds its thing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "rlyeh/ctcards.h"
#include "rlyeh/ctgame.h"
#include "rlyeh/ctnames.h"
#include "rlyeh/i18n.h"

/* The short (long = 0) or long text of a thing; buf holds twice the cap,
 * so a text over it is seen whole. */
static size_t text_of(int kind, int id, int lang, int lng, char *buf, size_t cap)
{
	struct text tx;

	text_init(&tx, buf, cap);
	if (lng)
		ctcards_long(kind, id, lang, &tx);
	else
		ctcards_short(kind, id, lang, &tx);
	return tx.len;
}

static void test_every_thing_has_its_texts(void **unused)
{
	char s[2 * CTCARDS_SHORT], l[2 * CTCARDS_LONG];
	int total = 0;

	(void)unused;
	for (int kind = 0; kind < CTCARDS_KINDS; kind++)
		for (int id = 0; id < ctcards_count(kind); id++)
			for (int lang = 0; lang < I18N_LANGS; lang++) {
				size_t ls = text_of(kind, id, lang, 0, s, sizeof(s));
				size_t ll = text_of(kind, id, lang, 1, l, sizeof(l));
				if (ls < 20 || ls > CTCARDS_SHORT)
					fail_msg("%s (%d/%d, %s): short text of %zu bytes: %s",
					         ctcards_name(kind, id, lang), kind, id,
					         i18n_code(lang), ls, s);
				if (ll <= ls || ll >= CTCARDS_LONG)
					fail_msg("%s (%d/%d, %s): long text of %zu bytes: %s",
					         ctcards_name(kind, id, lang), kind, id,
					         i18n_code(lang), ll, l);
				assert_string_not_equal(ctcards_name(kind, id, lang), "?");
				total++;
			}
	assert_int_equal(total, 2 * (32 + 30 + 5 + CTCARDS_SQUARES));
	/* the two languages differ, except where a name is kept */
	text_of(CTCARDS_CARD, CK_KNIFE, I18N_EN, 0, s, sizeof(s));
	text_of(CTCARDS_CARD, CK_KNIFE, I18N_NL, 0, l, sizeof(l));
	assert_string_not_equal(s, l);
	/* nothing for what does not exist */
	assert_int_equal(text_of(CTCARDS_CARD, 32, I18N_EN, 0, s, sizeof(s)), 0);
	assert_int_equal(text_of(CTCARDS_KINDS, 0, I18N_EN, 1, s, sizeof(s)), 0);
	assert_string_equal(ctcards_name(CTCARDS_TILE, 30, I18N_EN), "?");
}

/* The numbers of the rules, as the texts must give them. */
static void test_numbers_of_the_rules(void **unused)
{
	static const struct {
		int kind, id, lng;
		const char *en, *nl;
	} rows[] = {
		{ CTCARDS_CARD, CK_KNIFE, 0, "+1 against cultists", "+1 tegen sektariërs" },
		{ CTCARDS_CARD, CK_KNIFE, 0, "kill on 4", "gedood op 4" },
		{ CTCARDS_CARD, CK_KNIFE + 1, 0, "+2 against byakhee", "+2 tegen byakhee" },
		{ CTCARDS_CARD, CK_KNIFE + 1, 0, "3 uses", "3 keer" },
		{ CTCARDS_CARD, CK_KNIFE + 1, 1, "(2 in the deck)", "(2 in de stapel)" },
		{ CTCARDS_CARD, CK_KNIFE + 2, 0, "+2 against cultists and byakhee",
		  "+2 tegen sektariërs en byakhee" },
		{ CTCARDS_CARD, CK_KNIFE + 2, 0, "1 bullet", "1 kogel" },
		{ CTCARDS_CARD, CK_KNIFE + 3, 0, "4 uses", "4 keer" },
		{ CTCARDS_CARD, CK_KNIFE + 4, 0, "only on a 1", "alleen bij een 1" },
		{ CTCARDS_CARD, CK_KNIFE + 4, 1, "(1 in the deck)", "(1 in de stapel)" },
		{ CTCARDS_CARD, CK_KNIFE + 5, 0, "2 sanity", "2 verstand" },
		{ CTCARDS_CARD, CK_KNIFE + 6, 0, "up to 5", "tot 5" },
		{ CTCARDS_CARD, CK_KNIFE + 7, 0, "4+", "4+" },
		{ CTCARDS_CARD, CK_KNIFE + 9, 0, "+3", "+3" },
		{ CTCARDS_CARD, CK_STASH, 0, "3 bullets", "3 kogels" },
		{ CTCARDS_CARD, CK_STASH, 0, "Police Station, 6", "Politiebureau 6" },
		{ CTCARDS_CARD, CK_DEADEYE, 0, "+2", "+2" },
		{ CTCARDS_CARD, CK_BANISH, 1, "1 relic instead of the usual 2",
		  "1 relikwie in plaats van de gewone 2" },
		{ CTCARDS_CARD, CK_OMEN, 1, "severity 7", "zwaarte 7" },
		{ CTCARDS_CARD, CK_JAMMED, 1, "severity 1", "zwaarte 1" },
		{ CTCARDS_CARD, CK_KNOCK, 0, "2 cultists", "2 sektariërs" },
		{ CTCARDS_CARD, CK_YELLOW, 0, "up to 3 squares", "tot 3 vakjes" },
		{ CTCARDS_TILE, 14, 0, "2 cultists", "2 sektariërs" },
		{ CTCARDS_TILE, 15, 0, "4 cultists and 4 tokens", "4 sektariërs en 4 fiches" },
		{ CTCARDS_TILE, 15, 1, "exits E S", "uitgangen O Z" },
		{ CTCARDS_TILE, 2, 0, "1 byakhee", "1 byakhee" },
		{ CTCARDS_TILE, 25, 0, "12 VP", "12 OP" },
		{ CTCARDS_TILE, 25, 1, "8 cultists and 1 byakhee", "8 sektariërs en 1 byakhee" },
		{ CTCARDS_TYPE, CT_AMULET, 1, "Jade Scarab", "Jade scarabee" },
		{ CTCARDS_TYPE, 3, 1, "2n−1 VP", "2n−1 OP" },
		{ CTCARDS_TYPE, 4, 1, "byakhee gives 2 relics, a cultist 1",
		  "byakhee geeft 2 relikwieën, een sektariër 1" },
		{ CTCARDS_SQUARE, CTCARDS_SANCTIFIED, 1, "12 VP", "12 OP" },
	};
	char buf[2 * CTCARDS_LONG];

	(void)unused;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		for (int lang = 0; lang < I18N_LANGS; lang++) {
			const char *want = lang == I18N_NL ? rows[i].nl : rows[i].en;
			text_of(rows[i].kind, rows[i].id, lang, rows[i].lng, buf, sizeof(buf));
			if (!strstr(buf, want))
				fail_msg("row %zu (%s): \"%s\" not in \"%s\"", i, i18n_code(lang),
				         want, buf);
		}
}

static void test_every_name_finds_itself(void **unused)
{
	struct ctcards_ref f, sg[4];
	int ns;

	(void)unused;
	for (int kind = 0; kind < CTCARDS_KINDS; kind++)
		for (int id = 0; id < ctcards_count(kind); id++)
			for (int lang = 0; lang < I18N_LANGS; lang++) {
				const char *name = ctcards_name(kind, id, lang);
				if (!ctcards_find(name, &f, sg, 4, &ns) || f.kind != kind ||
				    f.id != id)
					fail_msg("'%s' does not find itself", name);
			}
}

static void test_typed_names(void **unused)
{
	static const struct {
		const char *typed;
		int kind, id; /* -1: no match */
	} rows[] = {
		{ "trench knife", CTCARDS_CARD, CK_KNIFE },
		{ "TRENCH-KNIFE", CTCARDS_CARD, CK_KNIFE },
		{ "loopgraafmes", CTCARDS_CARD, CK_KNIFE },
		{ "Whalers Harpoon", CTCARDS_CARD, CK_KNIFE + 1 },
		{ "harpoon", CTCARDS_CARD, CK_KNIFE + 1 }, /* a unique part */
		{ "wings", CTCARDS_CARD, CK_WINGS },       /* a unique beginning */
		{ "e24", CTCARDS_CARD, CK_WINGS },
		{ "T26", CTCARDS_TILE, 25 },
		{ "church", CTCARDS_TILE, 0 }, /* "The" left out */
		{ "de kerk", CTCARDS_TILE, 0 },
		{ "Hymne bij dageraad", CTCARDS_CARD, CK_HYMN },
		{ "Relikwieen", -1, -1 },
		{ "Jade Scarab", CTCARDS_TYPE, CT_AMULET },
		{ "dolk", CTCARDS_TYPE, CT_AMULET + 1 },
		{ "street", CTCARDS_SQUARE, CTCARDS_STREET },
		{ "Geactiveerde plek", CTCARDS_SQUARE, CTCARDS_ACTIVATED },
		{ "Congregationalistisch ziekenhuis", CTCARDS_TILE, 16 },
		{ "Schouwburg Carcosa", CTCARDS_TILE, 26 },
		{ "zzzz", -1, -1 },
		{ "", -1, -1 },
		{ "the", -1, -1 },
	};
	struct ctcards_ref f, sg[4];
	int ns;

	(void)unused;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		int got = ctcards_find(rows[i].typed, &f, sg, 4, &ns) == 1;
		if (rows[i].kind < 0) {
			if (got)
				fail_msg("'%s' finds %s", rows[i].typed,
				         ctcards_name(f.kind, f.id, 0));
		} else if (!got || f.kind != rows[i].kind || f.id != rows[i].id)
			fail_msg("'%s' does not find %s", rows[i].typed,
			         ctcards_name(rows[i].kind, rows[i].id, 0));
	}
	/* several match: no thing, the matches suggested */
	assert_int_equal(ctcards_find("s", &f, sg, 4, &ns), -1);
	assert_int_equal(ns, 4);
	assert_int_equal(ctcards_find("Splitsing", &f, sg, 4, &ns), -1);
	assert_int_equal(ns, 3);
	for (int i = 0; i < ns; i++)
		assert_int_equal(sg[i].kind, CTCARDS_TILE);
	/* a misspelling: the nearest name suggested */
	assert_int_equal(ctcards_find("Trensh Knif", &f, sg, 4, &ns), 0);
	assert_true(ns >= 1);
	assert_int_equal(sg[0].kind, CTCARDS_CARD);
	assert_int_equal(sg[0].id, CK_KNIFE);
	assert_int_equal(ctcards_find("Verzilverd degenstock", &f, sg, 4, &ns), 0);
	assert_true(ns >= 1);
	assert_int_equal(sg[0].id, CK_KNIFE + 4);
	/* nothing near */
	assert_int_equal(ctcards_find("qqqqqqqqqqqqqqqqqqqq", &f, sg, 4, &ns), 0);
	assert_int_equal(ns, 0);
}

/* Completion: names beginning with what is typed first, then names
 * holding it, in either language; everything for "". */
static void test_complete(void **unused)
{
	struct ctcards_ref r[40];
	int n;

	(void)unused;
	n = ctcards_complete("sp", r, 40);
	assert_true(n >= 4);
	assert_int_equal(r[0].kind, CTCARDS_TILE); /* the junctions, by their Dutch names */
	n = ctcards_complete("harpoen", r, 40);
	assert_int_equal(n, 1);
	assert_int_equal(r[0].id, CK_HARPOON);
	n = ctcards_complete("wing", r, 40); /* and the Idol's Winged Effigy */
	assert_int_equal(n, 2);
	assert_int_equal(r[0].kind, CTCARDS_CARD);
	assert_int_equal(r[0].id, CK_WINGS);
	assert_int_equal(r[1].kind, CTCARDS_TYPE);
	assert_int_equal(r[1].id, CT_IDOL);
	assert_int_equal(ctcards_complete("", r, 40), 40);
	assert_int_equal(r[0].kind, CTCARDS_CARD);
	assert_int_equal(r[0].id, 0);
	assert_int_equal(ctcards_complete("", r, 5), 5);
	assert_int_equal(ctcards_complete("qqq", r, 40), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_thing_has_its_texts),
		cmocka_unit_test(test_numbers_of_the_rules),
		cmocka_unit_test(test_every_name_finds_itself),
		cmocka_unit_test(test_typed_names),
		cmocka_unit_test(test_complete),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
