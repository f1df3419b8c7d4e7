#include "rlyeh/console.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "rlyeh/bot.h"
#include "rlyeh/cdsolvecache.h"
#include "rlyeh/cli.h"
#include "rlyeh/cmd.h"
#include "rlyeh/export.h"
#include "rlyeh/i18n.h"
#include "rlyeh/store.h"
#include "rlyeh/text.h"

struct console {
	struct bot *bot;
	const char *channel;
	const char *locale;
	const char *moderator;
	int lang;
	char last[CONSOLE_NAME_MAX + 1];
	FILE *out;
	const char *pictures; /* where pictures are written */
};

/* Prints text, every line prefixed with `prefix`. */
static void print_lines(FILE *f, const char *prefix, const char *text)
{
	while (*text) {
		const char *nl = strchr(text, '\n');
		int n = nl ? (int)(nl - text) : (int)strlen(text);
		fprintf(f, "%s%.*s\n", prefix, n, text);
		text += n + (nl ? 1 : 0);
	}
}

/* Prints "/<command>[ <arg>]" of a button or menu id "<game>:<move>:<command>[:<arg>]";
 * 0, or -1 (nothing printed) for an id of another form. */
static int print_command(FILE *f, const char *id)
{
	const char *cmd = strchr(id, ':'), *arg;

	cmd = cmd ? strchr(cmd + 1, ':') : NULL;
	if (!cmd)
		return -1;
	cmd++;
	arg = strchr(cmd, ':');
	if (arg)
		fprintf(f, "/%.*s %s", (int)(arg - cmd), cmd, arg + 1);
	else
		fprintf(f, "/%s", cmd);
	return 0;
}

/* Prints m; `picture` is the line shown for its picture (NULL: none). */
static void print_msg(FILE *f, const struct msg *m, int lang, const char *picture)
{
	char prefix[128] = "";

	if (m->audience == MSG_PRIVATE) {
		struct text tx;
		text_init(&tx, prefix, sizeof(prefix));
		text_add(&tx, "(");
		i18n_add(&tx, lang, S_PRIVATE_TAG, m->user, NULL);
		text_add(&tx, ") ");
	}
	/* The player at the terminal sees every table: only a reminder calls. */
	if (m->call.reminder && m->call.user[0])
		fprintf(f, "%s%s%s\n", prefix, m->call.name, m->call.text);
	if (m->title[0])
		fprintf(f, "%s== %s ==\n", prefix, m->title);
	for (int i = 0; i < m->nfields; i++)
		fprintf(f, "%s  %s: %s\n", prefix, m->fields[i].name, m->fields[i].value);
	print_lines(f, prefix, m->text);
	if (picture && m->picture_alt)
		print_lines(f, prefix, m->picture_alt);
	if (picture)
		fprintf(f, "%s  %s\n", prefix, picture);
	if (msg_has_select(m)) {
		if (m->select.placeholder[0])
			fprintf(f, "%s  ? %s\n", prefix, m->select.placeholder);
		for (int i = 0; i < m->select.noptions && i < MSG_OPTIONS_MAX; i++) {
			const struct msg_option *o = &m->select.options[i];
			fprintf(f, "%s    %d. %s", prefix, i + 1, o->label);
			if (o->description[0])
				fprintf(f, " \xe2\x80\x94 %s", o->description);
			fputs(" [", f);
			if (print_command(f, m->select.id) == 0)
				fprintf(f, " %s", o->value);
			fputs("]\n", f);
		}
	}
	if (m->nbuttons) {
		fputs(prefix, f);
		fputs("  >", f);
		for (int i = 0; i < m->nbuttons; i++) {
			const struct msg_button *b = &m->buttons[i];
			const struct msg_prompt *p = b->prompt >= 1 && b->prompt <= m->nprompts &&
			                                     b->prompt <= MSG_PROMPTS_MAX
			                                 ? &m->prompts[b->prompt - 1]
			                                 : NULL;
			/* id is "<game>:<move>:<command>[:<arg>]" */
			if (!strchr(b->id, ':') || !strchr(strchr(b->id, ':') + 1, ':'))
				continue;
			if (b->disabled) { /* shown, but nothing to type for it */
				fprintf(f, " [%s: ", b->label);
				fputs(i18n_get(lang, S_BUTTON_UNAVAILABLE), f);
				fputs("]", f);
				continue;
			}
			fprintf(f, " [%s: ", b->label);
			print_command(f, b->id);
			if (p && p->placeholder[0])
				fprintf(f, " <%s (%s)>", p->label, p->placeholder);
			else if (p)
				fprintf(f, " <%s>", p->label);
			fputs("]", f);
		}
		fputs("\n", f);
	}
}

void console_print(FILE *f, const struct msg *m, int lang)
{
	char line[MSG_PICTURE_NAME + 64];
	struct text tx;

	text_init(&tx, line, sizeof(line));
	if (m->picture)
		i18n_add(&tx, lang, S_PICTURE_AT, m->picture_name, NULL);
	print_msg(f, m, lang, m->picture ? line : NULL);
}

/* Makes the parent directories of path (like mkdir -p); 0 or -1. */
static int make_parents(const char *path)
{
	char buf[4096];
	size_t n = strlen(path);

	if (n >= sizeof(buf))
		return -1;
	memcpy(buf, path, n + 1);
	for (char *q = buf + 1; *q; q++) {
		if (*q != '/')
			continue;
		*q = '\0';
		if (mkdir(buf, 0700) && errno != EEXIST)
			return -1;
		*q = '/';
	}
	return 0;
}

/* The length of the part of a picture name that names its table and kind,
 * "<kind>-<game>-" of "map-12-40.png" or "preview-12-40-3.png"; 0 for a
 * name of another form. */
static size_t table_prefix(const char *name)
{
	const char *dash = strchr(name, '-'), *p;

	if (!dash || dash == name || dash[1] < '0' || dash[1] > '9')
		return 0;
	for (p = dash + 1; *p >= '0' && *p <= '9'; p++)
		;
	return *p == '-' ? (size_t)(p - name) + 1 : 0;
}

/* Removes the earlier pictures of the table and kind of `kept` from dir, so
 * that a game leaves one picture of each kind rather than one per move.
 * Failures are ignored (the pictures stay). */
static void forget_older(const char *dir, const char *kept)
{
	size_t n = table_prefix(kept), len;
	char path[4096];
	struct dirent *e;
	DIR *d;

	if (!n || !(d = opendir(dir)))
		return;
	while ((e = readdir(d))) {
		len = strlen(e->d_name);
		if (e->d_name[0] == '.' || len < n + 4 || strncmp(e->d_name, kept, n) != 0 ||
		    strcmp(e->d_name + len - 4, ".png") != 0 || strcmp(e->d_name, kept) == 0 ||
		    table_prefix(e->d_name) != n)
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) < (int)sizeof(path))
			unlink(path);
	}
	closedir(d);
}

int console_save_picture(const char *dir, const struct msg *m, char *path, size_t cap, char *err,
                         size_t errlen)
{
	char tmp[4096];
	const unsigned char *p = m->picture;
	size_t left = m->picture_len;
	int fd, n;

	if (!m->picture || m->picture_len == 0)
		return 1;
	if (!msg_picture_name_ok(m->picture_name))
		return snprintf(err, errlen, "the name \"%.64s\" is not a file name",
		                m->picture_name),
		       -1;
	n = snprintf(path, cap, "%s/%s", dir, m->picture_name);
	if (n < 0 || (size_t)n >= cap ||
	    snprintf(tmp, sizeof(tmp), "%s/.%s.tmp", dir, m->picture_name) >= (int)sizeof(tmp))
		return snprintf(err, errlen, "%.300s: the path is too long", dir), -1;
	if (make_parents(path))
		return snprintf(err, errlen, "%.300s: %.200s", dir, strerror(errno)), -1;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return snprintf(err, errlen, "%.300s: %.200s", tmp, strerror(errno)), -1;
	while (left > 0) {
		ssize_t w = write(fd, p, left);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			snprintf(err, errlen, "%.300s: %.200s", tmp,
			         w < 0 ? strerror(errno) : "short write");
			close(fd);
			unlink(tmp);
			return -1;
		}
		p += w;
		left -= (size_t)w;
	}
	if (close(fd) || rename(tmp, path)) {
		snprintf(err, errlen, "%.300s: %.200s", path, strerror(errno));
		unlink(tmp);
		return -1;
	}
	forget_older(dir, m->picture_name);
	return 0;
}

void console_show(FILE *f, const struct msg *m, int lang, const char *dir)
{
	char path[4096], err[512], line[4700];
	struct text tx;

	if (!dir || !m->picture) {
		console_print(f, m, lang);
		return;
	}
	text_init(&tx, line, sizeof(line));
	if (console_save_picture(dir, m, path, sizeof(path), err, sizeof(err)) == 0)
		i18n_add(&tx, lang, S_PICTURE_AT, path, NULL);
	else
		i18n_add(&tx, lang, S_PICTURE_NOT_SAVED, err, NULL);
	print_msg(f, m, lang, line);
}

int console_picture_dir(const char *option, const char *db, char *out, size_t cap)
{
	const char *env = getenv("RLYEH_PICTURES");
	char dir[4096];
	int n;

	if (option && option[0])
		n = snprintf(out, cap, "%s", option);
	else if (env && env[0])
		n = snprintf(out, cap, "%s", env);
	else if (db && store_folder(db, dir, sizeof(dir)) == 0)
		n = snprintf(out, cap, "%s/pictures", dir);
	else
		n = snprintf(out, cap, "./pictures");
	return n < 0 || (size_t)n >= cap ? -1 : 0;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void flush(struct console *c, struct msg_list *out)
{
	for (int i = 0; i < out->n; i++)
		console_show(c->out, &out->m[i], c->lang, c->pictures);
	msg_clear(out);
	fflush(c->out);
}

/* Runs one command as `name`. */
static void run(struct console *c, const char *name, const struct cmd *cmd, struct msg_list *out)
{
	struct bot_req req = {
		.server = "local",
		.channel = c->channel,
		.user = name,
		.name = name,
		.locale = c->locale,
		.moderator = c->moderator && strcmp(c->moderator, name) == 0,
		.cmd = *cmd,
	};

	bot_handle(c->bot, &req, now_ms(), out);
	flush(c, out);
	/* One channel: the computer moves left for later passes are played
	 * before the next line is read. */
	while (bot_pending(c->bot)) {
		int64_t at = bot_next_deadline(c->bot), now = now_ms();
		bot_tick(c->bot, at > now ? at : now, out);
		flush(c, out);
	}
}

/* A private console error for `name`. */
static void complain(struct console *c, const char *name, int id, struct msg_list *out)
{
	struct msg *m = msg_add(out, MSG_PRIVATE, name, MSG_ERROR);

	if (m) {
		struct text tx;
		text_init(&tx, m->text, sizeof(m->text));
		i18n_add(&tx, c->lang, id, NULL);
	}
	flush(c, out);
}

static int valid_name(const char *s, size_t n)
{
	if (n == 0 || n > CONSOLE_NAME_MAX)
		return 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];
		if (!(ch >= 'a' && ch <= 'z') && !(ch >= 'A' && ch <= 'Z') &&
		    !(ch >= '0' && ch <= '9') && ch != '_' && ch != '-' && ch != '.')
			return 0;
	}
	return 1;
}

int console_parse_line(const char *text, char name[CONSOLE_NAME_MAX + 1], struct cmd *out)
{
	char buf[CMD_LINE_MAX + 1];
	size_t len = strcspn(text, "\r\n");
	const char *colon, *p = buf;

	name[0] = '\0';
	if (len >= sizeof(buf))
		return CMD_EARGS;
	memcpy(buf, text, len);
	buf[len] = '\0';
	while (*p == ' ' || *p == '\t')
		p++;
	if (!*p || *p == '#')
		return CONSOLE_LINE_EMPTY;
	colon = strchr(p, ':');
	if (*p != '/' && colon) {
		size_t n = (size_t)(colon - p);
		while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t'))
			n--;
		if (!valid_name(p, n))
			return CONSOLE_LINE_BADNAME;
		memcpy(name, p, n);
		name[n] = '\0';
		p = colon + 1;
	}
	return cmd_parse(p, out);
}

/* Handles one input line. */
static void line(struct console *c, const char *s, struct msg_list *out)
{
	char name[CONSOLE_NAME_MAX + 1];
	struct cmd cmd;
	int rc = console_parse_line(s, name, &cmd);
	const char *who;

	if (rc == CONSOLE_LINE_EMPTY)
		return;
	if (rc == CONSOLE_LINE_BADNAME) {
		fprintf(c->out, "console: a name is 1-%d letters, digits, '_', '-' or '.'\n",
		        CONSOLE_NAME_MAX);
		return;
	}
	if (name[0])
		memcpy(c->last, name, strlen(name) + 1);
	who = c->last[0] ? c->last : "player";
	if (rc == CMD_ENOTCMD)
		complain(c, who, S_ERR_NOT_COMMAND, out);
	else if (rc == CMD_EUNKNOWN)
		complain(c, who, S_ERR_UNKNOWN_COMMAND, out);
	else if (rc != CMD_OK)
		complain(c, who, S_ERR_ARGS, out);
	else
		run(c, who, &cmd, out);
}

static const char usage[] =
    "Usage: rlyeh console [OPTIONS]\n"
    "Play in the terminal: a local channel where every input line is\n"
    "  name: /command args     (e.g. 'alice: /curse bob', 'bob: /eye tentacle')\n"
    "and a line without 'name:' acts as the last named player. /help lists the\n"
    "commands. Works interactively and with piped input; end of input ends it.\n"
    "\n"
    "  --seed S          seed of the dice (default: from the clock)\n"
    "  --db PATH         database (default $XDG_DATA_HOME/rlyeh/rlyeh.db or\n"
    "                    ~/.local/share/rlyeh/rlyeh.db)\n"
    "  --lang en|nl      language (default en)\n"
    "  --name NAME       your name for lines without 'name:' (default $USER)\n"
    "  --channel NAME    the channel's name (default terminal)\n"
    "  --timeout SEC     turn timeout in seconds, 0 for none (default 120)\n"
    "  --moderator NAME  a player who may /abort any game\n"
    "  --against N       open a game of you against N computer players at start when\n"
    "                    the channel has none (default 2 when interactive, else 0)\n"
    "  --pictures DIR    where the pictures of messages (a game's map) are written,\n"
    "                    each replacing the last of its name; the path is printed\n"
    "                    (default $RLYEH_PICTURES, else 'pictures' beside the database)\n"
    "  --help            this text\n";

int console_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "db", required_argument, NULL, 'd' },
		{ "lang", required_argument, NULL, 'l' },
		{ "name", required_argument, NULL, 'n' },
		{ "channel", required_argument, NULL, 'c' },
		{ "timeout", required_argument, NULL, 't' },
		{ "moderator", required_argument, NULL, 'm' },
		{ "against", required_argument, NULL, 'a' },
		{ "pictures", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct bot_config cfg;
	struct console c = { .channel = "terminal", .locale = "en", .out = stdout };
	struct msg_list out = { 0 };
	struct store *st = NULL;
	char dbpath[4096], err[512], buf[CMD_LINE_MAX + 2], pictures[4096];
	struct {
		char buf[CMD_LINE_MAX + 1];
		size_t len;
		int skipping, eof;
	} in = { .len = 0 };
	const char *db = NULL, *me = getenv("USER"), *pictures_opt = NULL;
	long long against = -1, v;
	int opt, interactive = isatty(STDIN_FILENO);

	bot_config_default(&cfg);
	cfg.seed = (uint64_t)now_ms();
	optind = 1;
	while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (opt) {
		case 's':
			if (cli_parse_u64(optarg, &cfg.seed))
				return cli_usage_error("console",
				                       "--seed: expected an unsigned "
				                       "integer, got '%s'",
				                       optarg);
			break;
		case 'd':
			db = optarg;
			break;
		case 'l':
			if (!i18n_known(optarg))
				return cli_usage_error("console", "--lang: expected en or nl");
			c.locale = optarg;
			break;
		case 'n':
			if (!valid_name(optarg, strlen(optarg)))
				return cli_usage_error("console", "--name: 1-%d letters or digits",
				                       CONSOLE_NAME_MAX);
			me = optarg;
			break;
		case 'c':
			if (strlen(optarg) == 0 || strlen(optarg) >= STORE_ID_MAX)
				return cli_usage_error("console", "--channel: 1-%d bytes",
				                       STORE_ID_MAX - 1);
			c.channel = optarg;
			break;
		case 't':
			if (cli_parse_ll(optarg, 0, 86400, &v))
				return cli_usage_error("console", "--timeout: 0 to 86400 seconds");
			cfg.turn_timeout_ms = v * 1000;
			break;
		case 'm':
			c.moderator = optarg;
			break;
		case 'a':
			if (cli_parse_ll(optarg, 0, 11, &against))
				return cli_usage_error("console", "--against: 0 to 11");
			break;
		case 'p':
			if (!optarg[0])
				return cli_usage_error("console", "--pictures: a directory");
			pictures_opt = optarg;
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			return cli_usage_error("console", "unknown option");
		}
	}
	if (optind < argc)
		return cli_usage_error("console", "unexpected argument '%s'", argv[optind]);
	if (!me || !valid_name(me, strlen(me)))
		me = "player";
	c.lang = i18n_lang(c.locale);
	cfg.lang = c.locale;
	if (!db) {
		export_default_db(dbpath, sizeof(dbpath));
		db = dbpath;
	}
	if (console_picture_dir(pictures_opt, db, pictures, sizeof(pictures)))
		return cli_usage_error("console", "the pictures' directory is too long");
	c.pictures = pictures;
	/* Lines keep coming while a solver table is built; tables solved once
	 * are kept beside the database. */
	cdsolvecache_background();
	cdsolvecache_beside(db);
	{
		char why[2048];
		if (store_check_start(db, why, sizeof(why))) {
			fprintf(stderr, "rlyeh console: %s\n", why);
			return 1;
		}
	}
	if ((!store_is_postgresql(db) && make_parents(db)) ||
	    store_open(db, &st, err, sizeof(err))) {
		char shown[512];

		store_describe(db, shown, sizeof(shown));
		fprintf(stderr, "rlyeh console: %s: %s\n", shown,
		        st ? err : (err[0] ? err : strerror(errno)));
		return 1;
	}
	c.bot = bot_new(st, &cfg, err, sizeof(err));
	if (!c.bot) {
		fprintf(stderr, "rlyeh console: %s\n", err);
		store_close(st);
		return 1;
	}
	snprintf(c.last, sizeof(c.last), "%s", me);
	if (against < 0)
		against = interactive ? 2 : 0;
	if (interactive)
		fprintf(c.out,
		        "rlyeh console — database %s. Type /help; 'name: /command' plays as "
		        "another player; Ctrl-D ends.\n",
		        db);
	if (against > 0 && !bot_has_game(c.bot, "local", c.channel)) {
		struct cmd cmd;
		cmd_parse("/open", &cmd);
		run(&c, me, &cmd, &out);
		for (long long i = 0; i < against; i++) {
			cmd_parse("/addbot heuristic", &cmd);
			run(&c, me, &cmd, &out);
		}
		cmd_parse("/start", &cmd);
		run(&c, me, &cmd, &out);
	}
	for (;;) {
		int64_t deadline = bot_next_deadline(c.bot), wait = -1;
		struct pollfd pfd = { .fd = STDIN_FILENO, .events = POLLIN };
		char *nl = memchr(in.buf, '\n', in.len);
		ssize_t got;

		if (nl) {
			size_t n = (size_t)(nl - in.buf) + 1;
			if (in.skipping)
				in.skipping = 0;
			else {
				memcpy(buf, in.buf, n);
				buf[n] = '\0';
				line(&c, buf, &out);
			}
			memmove(in.buf, in.buf + n, in.len - n);
			in.len -= n;
			continue;
		}
		if (in.len == sizeof(in.buf)) {
			/* A line longer than any command: drop it to its end. */
			if (!in.skipping)
				fprintf(c.out, "console: line too long (at most %d bytes)\n",
				        CMD_LINE_MAX);
			in.skipping = 1;
			in.len = 0;
		}
		if (in.eof) {
			if (in.len && !in.skipping) {
				memcpy(buf, in.buf, in.len);
				buf[in.len] = '\0';
				line(&c, buf, &out);
			}
			break;
		}
		if (deadline) {
			wait = deadline - now_ms();
			if (wait < 0)
				wait = 0;
			if (wait > 60000)
				wait = 60000;
		}
		if (poll(&pfd, 1, (int)wait) == 0) {
			bot_tick(c.bot, now_ms(), &out);
			flush(&c, &out);
			continue;
		}
		got = read(STDIN_FILENO, in.buf + in.len, sizeof(in.buf) - in.len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			in.eof = 1;
		else
			in.len += (size_t)got;
	}
	msg_free(&out);
	bot_free(c.bot);
	store_close(st);
	return 0;
}
