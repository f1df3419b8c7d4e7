/* Every string in English and Dutch, with the same placeholders. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "rlyeh/cmap.h"
#include "rlyeh/cthulhu.h"
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
	}
}

static void test_format(void **unused)
{
	char buf[128];
	struct text t;

	(void)unused;
	text_init(&t, buf, sizeof(buf));
	i18n_add(&t, I18N_NL, S_CD_N_TAKE, "alice", "bob", NULL);
	assert_string_equal(buf, "alice neemt 1 verstand af van bob.");
	text_init(&t, buf, sizeof(buf));
	i18n_add(&t, I18N_EN, S_CD_N_TAKE, "alice", NULL);
	assert_string_equal(buf, "alice takes 1 sanity from {2}.");
	text_init(&t, buf, 12);
	i18n_add(&t, I18N_EN, S_CD_N_TAKE, "alice", "bob", NULL);
	assert_string_equal(buf, "alice takes");
	assert_true(t.truncated);
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
	assert_string_equal(ctnames_tile(CMAP_CHURCH, I18N_NL), "De kerk");
	assert_string_equal(ctnames_type(CT_MEAD, I18N_EN), "Space Mead");
	assert_string_equal(ctnames_relic(79, I18N_NL), "Toneeltekst in het geel");
	assert_string_equal(ctnames_relic(79, I18N_EN), "Play-Script in Yellow");
	assert_string_equal(ctnames_card(32, I18N_NL), "?");
	for (int k = 0; k < CTHULHU_KINDS; k++) {
		assert_true(strlen(ctnames_card(k, I18N_NL)) < MSG_BUTTON_LABEL - 10);
		if (k != CK_ELDERSIGN)
			assert_string_not_equal(ctnames_card(k, I18N_NL), ctnames_card(k, I18N_EN));
	}
	for (int t = 0; t < CMAP_TILES; t++)
		assert_true(strlen(ctnames_tile(t, I18N_NL)) < MSG_BUTTON_LABEL - 10);
	for (int r = 0; r < CTHULHU_RELICS; r++)
		assert_string_not_equal(ctnames_relic(r, I18N_NL), ctnames_relic(r, I18N_EN));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_catalog_complete),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_locales),
		cmocka_unit_test(test_board_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
