/* Every string in English and Dutch, with the same placeholders. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "rlyeh/ctgame.h"
#include "rlyeh/ctmap.h"
#include "rlyeh/ctnames.h"
#include "rlyeh/i18n.h"
#include "rlyeh/msg.h"

/* The set of placeholders {1}..{9} used by s, as a bit mask. */
static unsigned placeholders(const char *s)
{
	unsigned mask = 0;

	for (; *s; s++)
		if (s[0] == '{' && s[1] >= '1' && s[1] <= '9' && s[2] == '}')
			mask |= 1u << (s[1] - '0');
	return mask;
}

/* 1 when every "{k:" of s opens a well-formed "{k:one|other}". */
static int plurals_well_formed(const char *s)
{
	for (; (s = strchr(s, '{')); s++) {
		const char *bar, *close;
		if (!(s[1] >= '1' && s[1] <= '9' && s[2] == ':'))
			continue;
		bar = strchr(s + 3, '|');
		close = strchr(s + 3, '}');
		if (!bar || !close || bar > close || memchr(s + 3, '{', (size_t)(close - s - 3)))
			return 0;
	}
	return 1;
}

static void test_catalog_complete(void **unused)
{
	(void)unused;
	for (int id = 0; id < I18N_COUNT; id++) {
		for (int l = 0; l < I18N_LANGS; l++) {
			const char *s = i18n_raw(l, id);
			if (!s || !*s)
				fail_msg("string %d has no %s translation", id, i18n_code(l));
		}
		if (placeholders(i18n_raw(I18N_EN, id)) != placeholders(i18n_raw(I18N_NL, id)))
			fail_msg("string %d: placeholders differ between en and nl", id);
		for (int l = 0; l < I18N_LANGS; l++)
			if (!plurals_well_formed(i18n_raw(l, id)))
				fail_msg("string %d (%s): a plural form is not {k:one|other}", id,
				         i18n_code(l));
	}
}

static void test_format(void **unused)
{
	char buf[128];
	struct text t;

	(void)unused;
	text_init(&t, buf, sizeof(buf));
	i18n_add(&t, I18N_NL, S_CD_N_TAKE, "alice", "bob", NULL);
	assert_string_equal(buf, "alice krijgt 1 Verstandsfiche van bob.");
	text_init(&t, buf, sizeof(buf));
	i18n_add(&t, I18N_EN, S_CD_N_TAKE, "alice", NULL);
	assert_string_equal(buf, "alice takes 1 sanity from {2}.");
	text_init(&t, buf, 12);
	i18n_add(&t, I18N_EN, S_CD_N_TAKE, "alice", "bob", NULL);
	assert_string_equal(buf, "alice takes");
	assert_true(t.truncated);
}

/* Every count the bot prints takes the singular at 1 and the plural else,
 * in both languages. */
static void test_plurals(void **unused)
{
	static const struct {
		int lang, id;
		const char *a1, *a2, *a3, *want;
	} cases[] = {
		{ I18N_EN, S_ES_SCORE, "1", NULL, NULL, "1 point" },
		{ I18N_EN, S_ES_SCORE, "2", NULL, NULL, "2 points" },
		{ I18N_EN, S_ES_SCORE, "0", NULL, NULL, "0 points" },
		{ I18N_NL, S_ES_SCORE, "1", NULL, NULL, "1 punt" },
		{ I18N_NL, S_ES_SCORE, "2", NULL, NULL, "2 punten" },
		{ I18N_EN, S_ES_N_WIN, "al", "13", "1", "al wins with 13 points after 1 turn!" },
		{ I18N_NL, S_ES_N_WIN, "al", "1", "11", "al wint met 1 punt na 11 beurten!" },
		{ I18N_EN, S_ES_N_BANK, "al", "1", "1",
		  "al retreats and banks 1 Elder Sign: 1 point." },
		{ I18N_NL, S_ES_N_BANK, "al", "2", "1",
		  "al trekt zich terug en bewaart 2 Tekens: 1 punt." },
		{ I18N_EN, S_REC_LINE_PLAIN, "1", "2", "50%", "1 game · 2 wins (50%)" },
		{ I18N_NL, S_REC_LINE_PLAIN, "2", "1", "50%", "2 spellen · 1 gewonnen (50%)" },
		{ I18N_NL, S_ES_N_DEVOURED, "al", "1", NULL, "al wordt verslonden met 1 punt." },
		{ I18N_EN, S_ES_N_REFILL, "1", "4", NULL,
		  "The bag runs short: 1 Elder Sign die goes back in (its points still count); it "
		  "holds 4." },
		{ I18N_NL, S_ES_N_REFILL, "2", "1", NULL,
		  "De zak raakt leeg: 2 stenen met een Teken gaan terug (hun punten tellen nog); "
		  "er "
		  "zit er nu 1 in." },
		{ I18N_EN, S_REC_UNRANKED, "1", "3", NULL,
		  "Not ranked yet (fewer than 3 games): 1 player." },
		{ I18N_NL, S_REC_UNRANKED, "2", "1", NULL,
		  "Nog niet gerangschikt (minder dan 1 spel): 2 spelers." },
		{ I18N_EN, S_REC_EMPTY, "1", NULL, NULL,
		  "Nobody is ranked yet: it takes 1 finished game." },
		{ I18N_NL, S_REC_EMPTY, "1", NULL, NULL,
		  "Nog niemand staat op de ranglijst: daarvoor is 1 uitgespeeld spel nodig." },
		{ I18N_NL, S_REC_STATS_UNRANKED, "25.0", "1", NULL,
		  "waardering 25.0, niet gerangschikt voor 1 spel; " },
		{ I18N_EN, S_ERR_TOO_FEW, "1", NULL, NULL,
		  "At least 1 player is needed to start." },
		{ I18N_NL, S_ERR_TOO_FEW, "2", NULL, NULL,
		  "Er zijn minstens 2 spelers nodig om te beginnen." },
		{ I18N_NL, S_ERR_TABLE_FULL, "12", NULL, NULL, "De tafel is vol (12 spelers)." },
		{ I18N_EN, S_CT_TILE_RESHUFFLE, "1", NULL, NULL,
		  "The 1 tile of the map discard pile becomes the map deck." },
		{ I18N_EN, S_CTP_ERR_UNREACHABLE, "3,4", "1", NULL,
		  "3,4 cannot be reached with 1 square left." },
	};
	char buf[256];
	struct text t;

	(void)unused;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		text_init(&t, buf, sizeof(buf));
		i18n_add(&t, cases[i].lang, cases[i].id, cases[i].a1, cases[i].a2, cases[i].a3,
		         NULL);
		if (strcmp(buf, cases[i].want) != 0)
			fail_msg("case %zu: \"%s\", want \"%s\"", i, buf, cases[i].want);
		if (strchr(buf, '{') || strchr(buf, '|'))
			fail_msg("case %zu: a form is left: \"%s\"", i, buf);
	}
	text_init(&t, buf, sizeof(buf));
	i18n_add(&t, I18N_EN, S_REC_LINE, "2", "1", "50%", "1", NULL);
	assert_string_equal(buf, "2 games · 1 win (50%) · 1 loss to Cthulhu");
	text_init(&t, buf, sizeof(buf));
	i18n_add(&t, I18N_NL, S_CT_SUPPLY, "1", "2", "1", "3", NULL);
	assert_string_equal(buf, "voorraad: 1 sektariër, 2 byakhee, 1 hart, 3 kogels");
	text_init(&t, buf, sizeof(buf));
	i18n_add(&t, I18N_NL, S_CTP_RELICS_TEXT, "1", "0,1,0,0,0", "0", NULL);
	assert_string_equal(buf,
	                    "Verlies 1 relikwie. Gekozen per soort (van je bezit): 0,1,0,0,0. 0 "
	                    "gekozen.");
}

/* The word after the count n in s that is one of words[], or NULL. */
static const char *counted_word(const char *s, char n, const char *const *words)
{
	for (const char *p = s; *p; p++) {
		if (p[0] != n || p[1] != ' ' || (p > s && p[-1] >= '0' && p[-1] <= '9'))
			continue;
		for (const char *const *w = words; *w; w++) {
			size_t len = strlen(*w);
			char after = p[2 + len];
			if (strncmp(p + 2, *w, len) == 0 && !(after >= 'a' && after <= 'z') &&
			    !(after & 0x80))
				return *w;
		}
	}
	return NULL;
}

/* Every text of the board game (S_CT_..., S_CTP_...) with all its arguments
 * 1 counts its nouns in the singular, and with all of them 2 in the plural,
 * in both languages. */
static void test_board_counts_agree(void **unused)
{
	static const char *const plural[] = { "squares", "relics",     "bullets",    "hearts",
		                              "tiles",   "cards",      "cultists",   "letters",
		                              "vakjes",  "relikwieën", "kogels",     "harten",
		                              "tegels",  "kaarten",    "sektariërs", NULL };
	static const char *const singular[] = { "square", "relic",    "bullet",    "heart",
		                                "tile",   "card",     "cultist",   "letter",
		                                "vakje",  "relikwie", "kogel",     "hart",
		                                "tegel",  "kaart",    "sektariër", NULL };
	char buf[2048];
	struct text t;
	const char *w;

	(void)unused;
	for (int id = S_CT_DEALER; id < I18N_COUNT; id++) {
		if (id > S_CTP_WEAPON_AUTO && id != S_CTP_AWAITS)
			continue;
		for (int l = 0; l < I18N_LANGS; l++) {
			text_init(&t, buf, sizeof(buf));
			i18n_add(&t, l, id, "1", "1", "1", "1", "1", "1", "1", "1", "1", NULL);
			if ((w = counted_word(buf, '1', plural)) != NULL)
				fail_msg("string %d: \"1 %s\" in \"%s\"", id, w, buf);
			text_init(&t, buf, sizeof(buf));
			i18n_add(&t, l, id, "2", "2", "2", "2", "2", "2", "2", "2", "2", NULL);
			if ((w = counted_word(buf, '2', singular)) != NULL)
				fail_msg("string %d: \"2 %s\" in \"%s\"", id, w, buf);
		}
	}
}

/* The Dutch texts speak the Dutch rule sheet's words: werpen, de reactie,
 * Verstandsfiche, gezond (seeds/002), in the other games' rolls too. */
static void test_dutch_rule_sheet_words(void **unused)
{
	static const int ids[] = {
		S_STARTED,
		S_REMATCH,
		S_HELP,
		S_CD_WAIT_CURSE,
		S_CD_WAIT_EYE,
		S_CD_WAIT_RESPOND,
		S_CD_N_ROLL,
		S_CD_N_RESPOND,
		S_CD_N_LOSE,
		S_CD_N_GAIN,
		S_CD_N_TAKE,
		S_CD_N_SANE,
		S_CD_N_WIN,
		S_CD_RULES,
		S_CD_BUTTON_RESPOND,
		S_CD_ERR_MAD,
		S_CD_ERR_NOT_YOUR_MOVE,
		S_ES_WAIT,
		S_ES_AWAITS,
		S_ES_BUTTON_ROLL,
		S_ES_N_CONTINUE,
		S_CT_ROLL_MOVE,
		S_CT_ROLL_COMBAT,
		S_CTP_STARTED,
	};
	static const char *const not_theirs[] = { "gooi",       "terugvloek", "vloekt terug",
		                                  "Terugvloek", "aan zet",    "met verstand",
		                                  "bij zinnen", "1 verstand" };

	(void)unused;
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
		for (size_t k = 0; k < sizeof(not_theirs) / sizeof(not_theirs[0]); k++)
			if (strstr(i18n_raw(I18N_NL, ids[i]), not_theirs[k]))
				fail_msg("string %d says \"%s\"", ids[i], not_theirs[k]);
}

static void test_locales(void **unused)
{
	(void)unused;
	assert_int_equal(i18n_lang("nl"), I18N_NL);
	assert_int_equal(i18n_lang("nl-NL"), I18N_NL);
	assert_int_equal(i18n_lang("NL_be"), I18N_NL);
	assert_int_equal(i18n_lang("en-US"), I18N_EN);
	assert_int_equal(i18n_lang("nlx"), I18N_EN);
	assert_int_equal(i18n_lang(NULL), I18N_EN);
	assert_true(i18n_known("nl"));
	assert_false(i18n_known("nl-NL"));
	assert_string_equal(i18n_code(I18N_NL), "nl");
}

/* The board game's names: every card, tile, relic type and variant has a
 * Dutch name of its own that fits a button label, and English is the
 * rules file's. */
static void test_board_names(void **state)
{
	(void)state;
	assert_string_equal(ctnames_card(CK_KNIFE, I18N_EN), "Trench Knife");
	assert_string_equal(ctnames_card(CK_KNIFE, I18N_NL), "Loopgraafmes");
	assert_string_equal(ctnames_card(CK_ELDERSIGN, I18N_NL), "Elder Sign");
	assert_string_equal(ctnames_tile(CTMAP_CHURCH, I18N_NL), "De kerk");
	assert_string_equal(ctnames_type(CT_MEAD, I18N_EN), "Space Mead");
	assert_string_equal(ctnames_relic(79, I18N_NL), "Toneeltekst in het geel");
	assert_string_equal(ctnames_relic(79, I18N_EN), "Play-Script in Yellow");
	assert_string_equal(ctnames_card(32, I18N_NL), "?");
	for (int k = 0; k < CTGAME_KINDS; k++) {
		assert_true(strlen(ctnames_card(k, I18N_NL)) < MSG_BUTTON_LABEL - 10);
		if (k != CK_ELDERSIGN)
			assert_string_not_equal(ctnames_card(k, I18N_NL), ctnames_card(k, I18N_EN));
	}
	for (int t = 0; t < CTMAP_TILES; t++)
		assert_true(strlen(ctnames_tile(t, I18N_NL)) < MSG_BUTTON_LABEL - 10);
	for (int r = 0; r < CTGAME_RELICS; r++)
		assert_string_not_equal(ctnames_relic(r, I18N_NL), ctnames_relic(r, I18N_EN));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_catalog_complete),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_plurals),
		cmocka_unit_test(test_board_counts_agree),
		cmocka_unit_test(test_dutch_rule_sheet_words),
		cmocka_unit_test(test_locales),
		cmocka_unit_test(test_board_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
