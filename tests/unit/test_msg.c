/* The message model's pictures, select menus and prompts: who owns the
 * bytes, the limits the adapters rely on (5 rows on Discord: a select menu
 * leaves 20 buttons), and what is refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rlyeh/cmd.h"
#include "rlyeh/msg.h"

/* A 2x1 RGB PNG. */
static const unsigned char tiny_png[70] = {
	0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48,
	0x44, 0x52, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x01, 0x08, 0x02, 0x00, 0x00,
	0x00, 0x7b, 0x40, 0xe8, 0xdd, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78,
	0xda, 0x63, 0xf8, 0xcf, 0x00, 0x04, 0xff, 0x01, 0x07, 0x00, 0x01, 0xff, 0x3d, 0x7d,
	0x8c, 0x49, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
};

/* The list owns the bytes: copies by assignment share them and free
 * nothing; msg_add_copy gives another list bytes of its own, which outlive
 * the first list (the sanitizer and valgrind builds catch a double free or
 * a use after free here). */
static void test_picture_ownership(void **unused)
{
	struct msg_list a = { 0 }, b = { 0 };
	struct msg *m = msg_add(&a, MSG_CHANNEL, NULL, MSG_TABLE), *c, shared;

	(void)unused;
	assert_non_null(m);
	assert_null(m->picture);
	assert_int_equal(msg_picture(&a, m, "map-12.png", tiny_png, sizeof(tiny_png)), 0);
	assert_ptr_not_equal(m->picture, tiny_png);
	assert_int_equal(m->picture_len, sizeof(tiny_png));
	assert_memory_equal(m->picture, tiny_png, sizeof(tiny_png));
	assert_string_equal(m->picture_name, "map-12.png");
	shared = *m;
	assert_ptr_equal(shared.picture, m->picture);
	c = msg_add_copy(&b, m);
	assert_non_null(c);
	assert_ptr_not_equal(c->picture, m->picture);
	assert_string_equal(c->picture_name, "map-12.png");
	assert_int_equal(c->kind, MSG_TABLE);
	/* A new picture replaces the old one on the message; the list keeps
	 * both until it is cleared. */
	assert_int_equal(msg_picture(&a, m, "map-13.png", tiny_png, sizeof(tiny_png)), 0);
	assert_int_equal(a.npictures, 2);
	msg_clear(&a);
	assert_int_equal(a.n, 0);
	assert_int_equal(a.npictures, 0);
	assert_memory_equal(b.m[0].picture, tiny_png, sizeof(tiny_png));
	/* The list is usable again after msg_clear. */
	m = msg_add(&a, MSG_PRIVATE, "bob", MSG_INFO);
	assert_int_equal(msg_picture(&a, m, "x.png", tiny_png, sizeof(tiny_png)), 0);
	msg_free(&a);
	msg_free(&b);
	msg_free(&b); /* freeing an empty list again is harmless */
	assert_null(b.m);
}

static void test_picture_take_and_refusals(void **unused)
{
	static const char *const bad_names[] = {
		"",
		"map",
		".png",
		".map.png",
		"../x.png",
		"a/b.png",
		"a b.png",
		"map.PNG",
		"map.jpg",
		"\xc3\xa9.png",
		"a123456789012345678901234567890123456789012345678901234567890.png",
	};
	struct msg_list l = { 0 }, other = { 0 };
	struct msg *m = msg_add(&l, MSG_CHANNEL, NULL, MSG_TABLE);
	struct msg *stranger = msg_add(&other, MSG_CHANNEL, NULL, MSG_TABLE);
	unsigned char *buf = malloc(sizeof(tiny_png)), *kept, *big;

	(void)unused;
	assert_non_null(buf);
	memcpy(buf, tiny_png, sizeof(tiny_png));
	for (size_t i = 0; i < sizeof(bad_names) / sizeof(bad_names[0]); i++)
		if (msg_picture(&l, m, bad_names[i], tiny_png, sizeof(tiny_png)) == 0)
			fail_msg("name accepted: %s", bad_names[i]);
	assert_int_equal(msg_picture(&l, stranger, "map.png", tiny_png, sizeof(tiny_png)), -1);
	assert_int_equal(msg_picture(&l, m, "map.png", tiny_png + 1, sizeof(tiny_png) - 1), -1);
	assert_int_equal(msg_picture(&l, m, "map.png", tiny_png, 7), -1);
	assert_int_equal(msg_picture(&l, m, "map.png", NULL, 70), -1);
	big = calloc(1, (size_t)MSG_PICTURE_MAX + 1);
	assert_non_null(big);
	memcpy(big, tiny_png, 8);
	assert_int_equal(msg_picture(&l, m, "map.png", big, (size_t)MSG_PICTURE_MAX + 1), -1);
	assert_null(m->picture);
	assert_int_equal(l.npictures, 0);
	/* The largest picture allowed is taken without a copy. */
	assert_int_equal(msg_picture_take(&l, m, "big.png", &big, MSG_PICTURE_MAX), 0);
	assert_null(big);
	assert_int_equal(m->picture_len, MSG_PICTURE_MAX);
	/* A refused take leaves the buffer with the caller. */
	kept = buf;
	assert_int_equal(msg_picture_take(&l, m, "bad name.png", &buf, sizeof(tiny_png)), -1);
	assert_ptr_equal(buf, kept);
	assert_string_equal(m->picture_name, "big.png");
	assert_int_equal(msg_picture_take(&l, m, "map.png", &buf, sizeof(tiny_png)), 0);
	assert_null(buf);
	assert_ptr_equal(m->picture, kept);
	assert_int_equal(l.npictures, 2);
	msg_free(&l);
	msg_free(&other);
}

/* A select menu takes a row: then 20 buttons at most, in msg_button and
 * msg_select alike. */
static void test_select_limits(void **unused)
{
	static struct msg m;
	char label[200], desc[200];

	(void)unused;
	assert_int_equal(msg_option(&m, "a", "a", NULL), -1); /* no menu yet */
	for (int i = 0; i < MSG_BUTTONS_SELECT; i++)
		assert_non_null(msg_button(&m, 3, 1, "eye", NULL, "x", MSG_PRIMARY));
	assert_int_equal(msg_select(&m, 3, 1, "place", "p1", "Where?"), 0);
	assert_string_equal(m.select.id, "3:1:place:p1");
	assert_string_equal(m.select.placeholder, "Where?");
	assert_null(msg_button(&m, 3, 1, "eye", NULL, "x", MSG_PRIMARY));
	assert_int_equal(m.nbuttons, MSG_BUTTONS_SELECT);
	assert_int_equal(msg_has_select(&m), 0); /* no option yet */
	/* Values: one typeable word of 1 to 32 bytes. */
	assert_int_equal(msg_value_ok("4,-2"), 1);
	assert_int_equal(msg_value_ok("a b"), 0);
	assert_int_equal(msg_picture_name_ok("map-1_x.png"), 1);
	assert_int_equal(msg_picture_name_ok("../x.png"), 0);
	assert_int_equal(msg_option(&m, "x", "", NULL), -1);
	assert_int_equal(msg_option(&m, "x", "two words", NULL), -1);
	assert_int_equal(msg_option(&m, "x", "a\"b", NULL), -1);
	assert_int_equal(msg_option(&m, "x", "\xc3\xa9", NULL), -1);
	assert_int_equal(msg_option(&m, "x", "123456789012345678901234567890123", NULL), -1);
	assert_int_equal(msg_option(&m, "", "1", NULL), -1);
	assert_int_equal(msg_option(&m, "x", "12345678901234567890123456789012", NULL), 0);
	/* Labels and descriptions are cut at a character boundary. */
	memset(label, 'a', 79);
	snprintf(label + 79, sizeof(label) - 79, "\xc3\xa9tail");
	memset(desc, 'a', 99);
	snprintf(desc + 99, sizeof(desc) - 99, "\xc3\xa9tail");
	assert_int_equal(msg_option(&m, label, "4,-2", desc), 0);
	assert_int_equal(strlen(m.select.options[1].label), 79);
	assert_int_equal(strlen(m.select.options[1].description), 99);
	assert_int_equal(msg_has_select(&m), 1);
	for (int i = 2; i < MSG_OPTIONS_MAX; i++)
		assert_int_equal(msg_option(&m, "x", "v", NULL), 0);
	assert_int_equal(msg_option(&m, "x", "v", NULL), -1);
	/* Replacing the menu drops its options. */
	assert_int_equal(msg_select(&m, 3, 2, "place", NULL, NULL), 0);
	assert_int_equal(m.select.noptions, 0);
	assert_string_equal(m.select.placeholder, "");
	/* With more than 20 buttons there is no room for a menu. */
	memset(&m, 0, sizeof(m));
	for (int i = 0; i < MSG_BUTTONS_MAX; i++)
		assert_non_null(msg_button(&m, 3, 1, "eye", NULL, "x", MSG_PRIMARY));
	assert_null(msg_button(&m, 3, 1, "eye", NULL, "x", MSG_PRIMARY));
	assert_int_equal(msg_select(&m, 3, 1, "place", NULL, NULL), -1);
	assert_string_equal(m.select.id, "");
}

static void test_prompts(void **unused)
{
	static struct msg m, other;
	struct msg_button *move, *again, *b, *far;

	(void)unused;
	move = msg_button(&m, 7, 3, "move", NULL, "Move", MSG_PRIMARY);
	again = msg_button(&m, 7, 3, "move", "again", "New destination", MSG_SECONDARY);
	b = msg_button(&other, 7, 3, "move", NULL, "Move", MSG_PRIMARY);
	assert_int_equal(msg_ask(&m, b, "Move", NULL, NULL, 0), -1); /* not m's */
	assert_int_equal(msg_ask(&m, move, "", NULL, NULL, 0), -1);
	assert_int_equal(msg_ask(&m, move, "Move", NULL, NULL, MSG_PROMPT_TEXT + 1), -1);
	assert_int_equal(msg_ask(&m, move, "Move", NULL, NULL, -1), -1);
	assert_int_equal(m.nprompts, 0);
	assert_int_equal(move->prompt, 0);
	assert_int_equal(msg_ask(&m, move, "Move", "Destination", "gx,gy", 0), 0);
	assert_int_equal(move->prompt, 1);
	assert_int_equal(m.prompts[0].max_len, MSG_PROMPT_TEXT);
	assert_string_equal(m.prompts[0].label, "Destination");
	assert_string_equal(m.prompts[0].placeholder, "gx,gy");
	/* The same question is shared; the label defaults to the title. */
	assert_int_equal(msg_ask(&m, again, "Move", "Destination", "gx,gy", 0), 0);
	assert_int_equal(again->prompt, 1);
	assert_int_equal(m.nprompts, 1);
	assert_int_equal(msg_ask(&m, again, "Where to", NULL, NULL, 9), 0);
	assert_int_equal(again->prompt, 2);
	assert_string_equal(m.prompts[1].label, "Where to");
	/* At most MSG_PROMPTS_MAX different ones. */
	for (int i = 0; m.nprompts < MSG_PROMPTS_MAX; i++) {
		char t[16];
		snprintf(t, sizeof(t), "Q%d", i);
		b = msg_button(&m, 7, 3, "move", NULL, t, MSG_PRIMARY);
		assert_int_equal(msg_ask(&m, b, t, NULL, NULL, 0), 0);
	}
	b = msg_button(&m, 7, 3, "move", NULL, "one more", MSG_PRIMARY);
	assert_int_equal(msg_ask(&m, b, "one more", NULL, NULL, 0), -1);
	assert_int_equal(b->prompt, 0);
	assert_int_equal(msg_ask(&m, b, "Move", "Destination", "gx,gy", 0), 0);
	/* An id of 100 bytes leaves no room for an adapter's mark. */
	far = msg_button(&m, INT64_MAX, 1000000000, "movemove",
	                 "123456789012345678901234567890"
	                 "123456789012345678901234567890",
	                 "far", MSG_PRIMARY);
	assert_int_equal(strlen(far->id), 100);
	assert_int_equal(msg_ask(&m, far, "Move", NULL, NULL, 0), -1);
}

/* The text of a prompt or the value of a choice becomes the last argument. */
/* A button is open unless disabled; msg_disable takes NULL (a button
 * that did not fit). */
static void test_disable(void **unused)
{
	static struct msg m;
	struct msg_button *b;

	(void)unused;
	b = msg_button(&m, 3, 1, "pick", "0", "Spend 2 bullets", MSG_PRIMARY);
	assert_non_null(b);
	assert_int_equal(b->disabled, 0);
	msg_disable(b);
	assert_int_equal(m.buttons[0].disabled, 1);
	assert_int_equal(msg_button(&m, 3, 1, "pick", "1", "Lose", MSG_PRIMARY)->disabled, 0);
	msg_disable(NULL);
	assert_int_equal(m.nbuttons, 2);
}

static void test_append_arg(void **unused)
{
	struct cmd c;
	char long_arg[CMD_ARG_MAX + 1];

	(void)unused;
	assert_int_equal(cmd_parse_button("7:3:eye:x", &c), CMD_OK);
	assert_int_equal(cmd_append_arg(&c, "4,-2"), CMD_OK);
	assert_int_equal(c.nargs, 2);
	assert_string_equal(c.args[1], "4,-2");
	assert_int_equal(cmd_append_arg(&c, ""), CMD_EARGS);
	memset(long_arg, 'a', CMD_ARG_MAX);
	long_arg[CMD_ARG_MAX] = '\0';
	assert_int_equal(cmd_append_arg(&c, long_arg), CMD_EARGS);
	long_arg[CMD_ARG_MAX - 1] = '\0';
	assert_int_equal(cmd_append_arg(&c, long_arg), CMD_OK);
	while (c.nargs < CMD_ARGS_MAX)
		assert_int_equal(cmd_append_arg(&c, "z"), CMD_OK);
	assert_int_equal(cmd_append_arg(&c, "y"), CMD_EARGS);
	assert_int_equal(c.nargs, CMD_ARGS_MAX);
}

/* A list fitted to its messages keeps them (and their pictures) whole, and
 * grows again as before; an empty one holds nothing. */
static void test_fit(void **unused)
{
	struct msg_list l = { 0 };
	struct msg *m;

	(void)unused;
	for (int i = 0; i < 3; i++) {
		m = msg_add(&l, MSG_CHANNEL, NULL, MSG_EVENT);
		assert_non_null(m);
		snprintf(m->text, sizeof(m->text), "line %d", i);
	}
	assert_int_equal(msg_picture(&l, &l.m[2], "map.png", tiny_png, sizeof(tiny_png)), 0);
	assert_int_equal(l.cap, 4);
	msg_fit(&l);
	assert_int_equal(l.cap, 3);
	assert_int_equal(l.n, 3);
	assert_string_equal(l.m[0].text, "line 0");
	assert_string_equal(l.m[2].text, "line 2");
	assert_memory_equal(l.m[2].picture, tiny_png, sizeof(tiny_png));
	msg_fit(&l); /* already fitted: nothing changes */
	assert_int_equal(l.cap, 3);
	m = msg_add(&l, MSG_CHANNEL, NULL, MSG_TABLE);
	assert_non_null(m);
	assert_int_equal(l.n, 4);
	assert_string_equal(l.m[1].text, "line 1");
	msg_clear(&l);
	msg_fit(&l);
	assert_null(l.m);
	assert_int_equal(l.cap, 0);
	assert_non_null(msg_add(&l, MSG_PRIVATE, "bob", MSG_INFO));
	msg_free(&l);
}

/* Taking a list's messages moves them (trading places when the taker is
 * empty, copying when not); the giver ends empty and reusable. */
static void test_take(void **unused)
{
	struct msg_list a = { 0 }, b = { 0 };
	struct msg *m;
	const struct msg *moved;

	(void)unused;
	m = msg_add(&a, MSG_CHANNEL, NULL, MSG_TABLE);
	snprintf(m->text, sizeof(m->text), "table");
	assert_int_equal(msg_picture(&a, m, "map.png", tiny_png, sizeof(tiny_png)), 0);
	moved = a.m;
	assert_int_equal(msg_take(&b, &a), 0);
	assert_ptr_equal(b.m, moved); /* no copy */
	assert_int_equal(b.n, 1);
	assert_int_equal(a.n, 0);
	assert_int_equal(a.npictures, 0);
	assert_memory_equal(b.m[0].picture, tiny_png, sizeof(tiny_png));
	/* b is not empty now: a's next messages are copied after b's */
	m = msg_add(&a, MSG_PRIVATE, "bob", MSG_INFO);
	snprintf(m->text, sizeof(m->text), "yours");
	assert_int_equal(msg_picture(&a, m, "hand.png", tiny_png, sizeof(tiny_png)), 0);
	assert_int_equal(msg_take(&b, &a), 0);
	assert_int_equal(b.n, 2);
	assert_int_equal(a.n, 0);
	assert_int_equal(a.npictures, 0); /* a's copy freed; b has its own */
	assert_string_equal(b.m[0].text, "table");
	assert_string_equal(b.m[1].text, "yours");
	assert_string_equal(b.m[1].user, "bob");
	assert_memory_equal(b.m[1].picture, tiny_png, sizeof(tiny_png));
	assert_int_equal(b.npictures, 2);
	assert_non_null(msg_add(&a, MSG_CHANNEL, NULL, MSG_EVENT));
	msg_free(&a);
	msg_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_picture_ownership),
		cmocka_unit_test(test_picture_take_and_refusals),
		cmocka_unit_test(test_select_limits),
		cmocka_unit_test(test_prompts),
		cmocka_unit_test(test_append_arg),
		cmocka_unit_test(test_disable),
		cmocka_unit_test(test_fit),
		cmocka_unit_test(test_take),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
