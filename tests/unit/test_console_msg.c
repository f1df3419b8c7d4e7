/* The terminal adapter's rendering of select menus, buttons that ask for
 * text and pictures (written to files), and where pictures go. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "rlyeh/console.h"
#include "rlyeh/i18n.h"

/* A 2x1 RGB PNG. */
static const unsigned char tiny_png[70] = {
	0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48,
	0x44, 0x52, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x01, 0x08, 0x02, 0x00, 0x00,
	0x00, 0x7b, 0x40, 0xe8, 0xdd, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78,
	0xda, 0x63, 0xf8, 0xcf, 0x00, 0x04, 0xff, 0x01, 0x07, 0x00, 0x01, 0xff, 0x3d, 0x7d,
	0x8c, 0x49, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
};

/* What console_show prints for m, as a malloc'd string. */
static char *shown(const struct msg *m, const char *dir)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	console_show(f, m, i18n_lang("en"), dir);
	fclose(f);
	return buf;
}

static void expect_text(char *got, const char *want)
{
	if (strcmp(got, want) != 0)
		fail_msg("got\n%s\nwant\n%s", got, want);
	free(got);
}

/* The player at the terminal sees every table: a call shows only in a
 * reminder, as the player's name and the call's text above the table. */
static void test_reminder_call(void **unused)
{
	struct msg_list l = { 0 };
	struct msg *m = msg_add(&l, MSG_CHANNEL, NULL, MSG_TABLE);

	(void)unused;
	snprintf(m->title, sizeof(m->title), "Cthulhu Dice — turn 1");
	snprintf(m->text, sizeof(m->text), "alice is the Caster");
	snprintf(m->call.user, sizeof(m->call.user), "alice");
	snprintf(m->call.name, sizeof(m->call.name), "alice");
	snprintf(m->call.text, sizeof(m->call.text), " — your move.");
	expect_text(shown(m, NULL), "== Cthulhu Dice — turn 1 ==\nalice is the Caster\n");
	m->call.reminder = 1;
	snprintf(m->call.text, sizeof(m->call.text),
	         ", the table still waits for your move: 30 s left.");
	expect_text(shown(m, NULL), "alice, the table still waits for your move: 30 s left.\n"
	                            "== Cthulhu Dice — turn 1 ==\nalice is the Caster\n");
	msg_free(&l);
}

/* A table of the board game: its placement options as numbered lines, the
 * command each gives, and the button that asks for a destination. */
static void test_select_and_prompt(void **unused)
{
	struct msg_list l = { 0 };
	struct msg *m = msg_add(&l, MSG_CHANNEL, NULL, MSG_TABLE);
	struct msg *p;
	struct msg_button *b;

	(void)unused;
	snprintf(m->title, sizeof(m->title), "Round 2");
	snprintf(m->text, sizeof(m->text), "alice drew a tile");
	assert_int_equal(msg_select(m, 12, 5, "place", NULL, "Where does it go?"), 0);
	assert_int_equal(msg_option(m, "#1 cell (0,1) 90\xc2\xb0", "1", "exits N E"), 0);
	assert_int_equal(msg_option(m, "#2 cell (1,0) 0\xc2\xb0", "2", NULL), 0);
	b = msg_button(m, 12, 5, "move", NULL, "Move", MSG_PRIMARY);
	assert_int_equal(msg_ask(m, b, "Move", "Destination", "gx,gy", 0), 0);
	b = msg_button(m, 12, 5, "move", "again", "Again", MSG_SECONDARY);
	assert_int_equal(msg_ask(m, b, "Again", NULL, NULL, 0), 0);
	msg_button(m, 12, 5, "stop", NULL, "Stop", MSG_DANGER);
	expect_text(shown(m, NULL), "== Round 2 ==\n"
	                            "alice drew a tile\n"
	                            "  ? Where does it go?\n"
	                            "    1. #1 cell (0,1) 90\xc2\xb0 \xe2\x80\x94 exits N E "
	                            "[/place 1]\n"
	                            "    2. #2 cell (1,0) 0\xc2\xb0 [/place 2]\n"
	                            "  > [Move: /move <Destination (gx,gy)>] [Again: /move again "
	                            "<Again>] [Stop: /stop]\n");
	/* A private one carries its prefix on every line. */
	p = msg_add(&l, MSG_PRIVATE, "bob", MSG_INFO);
	assert_int_equal(msg_select(p, 12, 5, "discard", "hand", NULL), 0);
	assert_int_equal(msg_option(p, "Tommy gun", "c7", NULL), 0);
	expect_text(shown(p, NULL), "(only bob sees this)     1. Tommy gun [/discard hand c7]\n");
	/* Without options there is no menu. */
	p->select.noptions = 0;
	expect_text(shown(p, NULL), "");
	msg_free(&l);
}

/* A disabled button is listed, marked unavailable, without a command to
 * type for it. */
static void test_disabled_button(void **unused)
{
	struct msg_list l = { 0 };
	struct msg *m = msg_add(&l, MSG_CHANNEL, NULL, MSG_TABLE);

	(void)unused;
	snprintf(m->text, sizeof(m->text), "alice: the roll failed");
	msg_disable(msg_button(m, 12, 5, "pick", "0", "Spend 3 bullets", MSG_PRIMARY));
	msg_button(m, 12, 5, "pick", "1", "Lose a heart & reroll", MSG_PRIMARY);
	expect_text(shown(m, NULL), "alice: the roll failed\n"
	                            "  > [Spend 3 bullets: unavailable] [Lose a heart & reroll: "
	                            "/pick 1]\n");
	msg_free(&l);
}

/* Reads a whole file (at most 4096 bytes) into buf; returns its length or -1. */
static long slurp(const char *path, unsigned char *buf, size_t cap)
{
	FILE *f = fopen(path, "rb");
	size_t n;

	if (!f)
		return -1;
	n = fread(buf, 1, cap, f);
	fclose(f);
	return (long)n;
}

/* The picture is written to a file whose path is printed before the
 * choices; a failure to write is printed and the message shown anyway. */
static void test_picture_file(void **unused)
{
	char dir[] = "/tmp/rlyeh-console-XXXXXX", sub[256], path[300], want[1024];
	unsigned char buf[4096], other[sizeof(tiny_png) + 4];
	struct msg_list l = { 0 };
	struct msg *m = msg_add(&l, MSG_CHANNEL, NULL, MSG_TABLE);
	char err[256];
	FILE *f;

	(void)unused;
	assert_non_null(mkdtemp(dir));
	snprintf(sub, sizeof(sub), "%s/pics/game", dir);
	snprintf(path, sizeof(path), "%s/map.png", sub);
	snprintf(m->text, sizeof(m->text), "the map");
	msg_button(m, 12, 5, "stop", NULL, "Stop", MSG_DANGER);
	assert_int_equal(console_save_picture(sub, m, path, sizeof(path), err, sizeof(err)), 1);
	assert_int_equal(msg_picture(&l, m, "map.png", tiny_png, sizeof(tiny_png)), 0);

	/* console_print names the picture but writes nothing. */
	expect_text(shown(m, NULL), "the map\n  picture: map.png\n  > [Stop: /stop]\n");
	assert_int_equal(access(sub, F_OK), -1);

	snprintf(want, sizeof(want), "the map\n  picture: %s\n  > [Stop: /stop]\n", path);
	expect_text(shown(m, sub), want);
	assert_int_equal(slurp(path, buf, sizeof(buf)), sizeof(tiny_png));
	assert_memory_equal(buf, tiny_png, sizeof(tiny_png));
	/* The next picture of that name replaces it; no temporary file stays. */
	memcpy(other, tiny_png, sizeof(tiny_png));
	memcpy(other + sizeof(tiny_png), "more", 4);
	assert_int_equal(msg_picture(&l, m, "map.png", other, sizeof(other)), 0);
	expect_text(shown(m, sub), want);
	assert_int_equal(slurp(path, buf, sizeof(buf)), sizeof(other));
	assert_memory_equal(buf, other, sizeof(other));
	snprintf(want, sizeof(want), "%s/.map.png.tmp", sub);
	assert_int_equal(access(want, F_OK), -1);

	/* A directory that cannot be made: the reason, and the game goes on. */
	snprintf(sub, sizeof(sub), "%s/file", dir);
	f = fopen(sub, "w");
	assert_non_null(f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/file/deeper", dir);
	snprintf(want, sizeof(want),
	         "the map\n  picture not saved: %s/file/deeper: Not a directory\n  > [Stop: "
	         "/stop]\n",
	         dir);
	expect_text(shown(m, path), want);
	/* A name that is no file name is not written (a message built by hand). */
	snprintf(m->picture_name, sizeof(m->picture_name), "../x.png");
	assert_int_equal(console_save_picture(dir, m, path, sizeof(path), err, sizeof(err)), -1);
	assert_non_null(strstr(err, "is not a file name"));

	snprintf(path, sizeof(path), "%s/pics/game/map.png", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/pics/game", dir);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/pics", dir);
	rmdir(path);
	unlink(sub);
	assert_int_equal(rmdir(dir), 0);
	msg_free(&l);
}

static void test_picture_dir(void **unused)
{
	char out[64];

	(void)unused;
	unsetenv("RLYEH_PICTURES");
	assert_int_equal(
	    console_picture_dir(NULL, "/home/a/.local/share/rlyeh/rlyeh.db", out, sizeof(out)), 0);
	assert_string_equal(out, "/home/a/.local/share/rlyeh/pictures");
	assert_int_equal(console_picture_dir(NULL, "game.db", out, sizeof(out)), 0);
	assert_string_equal(out, "./pictures");
	setenv("RLYEH_PICTURES", "/srv/maps", 1);
	assert_int_equal(console_picture_dir(NULL, "/data/rlyeh.db", out, sizeof(out)), 0);
	assert_string_equal(out, "/srv/maps");
	assert_int_equal(console_picture_dir("here", "/data/rlyeh.db", out, sizeof(out)), 0);
	assert_string_equal(out, "here");
	setenv("RLYEH_PICTURES", "", 1);
	assert_int_equal(console_picture_dir("", "/data/rlyeh.db", out, sizeof(out)), 0);
	assert_string_equal(out, "/data/pictures");
	assert_int_equal(console_picture_dir(NULL,
	                                     "/a/very/long/directory/name/that/does/not/fit/"
	                                     "in/sixty-four/bytes/rlyeh.db",
	                                     out, sizeof(out)),
	                 -1);
	unsetenv("RLYEH_PICTURES");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reminder_call),   cmocka_unit_test(test_select_and_prompt),
		cmocka_unit_test(test_disabled_button), cmocka_unit_test(test_picture_file),
		cmocka_unit_test(test_picture_dir),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
