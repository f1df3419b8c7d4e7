#include "rlyeh/console.h"

#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "rlyeh/bot.h"
#include "rlyeh/cli.h"
#include "rlyeh/cmd.h"
#include "rlyeh/export.h"
#include "rlyeh/i18n.h"
#include "rlyeh/solvecache.h"
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

void console_print(FILE *f, const struct msg *m, int lang)
{
	char prefix[128] = "";

	if (m->audience == MSG_PRIVATE) {
		struct text tx;
		text_init(&tx, prefix, sizeof(prefix));
		text_add(&tx, "(");
		i18n_add(&tx, lang, S_PRIVATE_TAG, m->user, NULL);
		text_add(&tx, ") ");
	}
	if (m->title[0])
		fprintf(f, "%s== %s ==\n", prefix, m->title);
	for (int i = 0; i < m->nfields; i++)
		fprintf(f, "%s  %s: %s\n", prefix, m->fields[i].name, m->fields[i].value);
	print_lines(f, prefix, m->text);
	if (m->nbuttons) {
		fputs(prefix, f);
		fputs("  >", f);
		for (int i = 0; i < m->nbuttons; i++) {
			/* id is "<game>:<move>:<command>[:<arg>]" */
			const char *cmd = strchr(m->buttons[i].id, ':');
			cmd = cmd ? strchr(cmd + 1, ':') : NULL;
			if (!cmd)
				continue;
			cmd++;
			const char *arg = strchr(cmd, ':');
			if (arg)
				fprintf(f, " [%s: /%.*s %s]", m->buttons[i].label, (int)(arg - cmd),
				        cmd, arg + 1);
			else
				fprintf(f, " [%s: /%s]", m->buttons[i].label, cmd);
		}
		fputs("\n", f);
	}
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
		console_print(c->out, &out->m[i], c->lang);
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
		    !(ch >= '0' && ch <= '9') && ch != '_' && ch != '-' && ch != '.' && ch < 0x80)
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
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct bot_config cfg;
	struct console c = { .channel = "terminal", .locale = "en", .out = stdout };
	struct msg_list out = { 0 };
	struct store *st = NULL;
	char dbpath[4096], err[512], buf[CMD_LINE_MAX + 2];
	struct {
		char buf[CMD_LINE_MAX + 1];
		size_t len;
		int skipping, eof;
	} in = { .len = 0 };
	const char *db = NULL, *me = getenv("USER");
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
	/* Lines keep coming while a solver table is built; tables solved once
	 * are kept beside the database. */
	solvecache_background();
	solvecache_beside(db);
	if (make_parents(db) || store_open(db, &st, err, sizeof(err))) {
		fprintf(stderr, "rlyeh console: %s: %s\n", db,
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
