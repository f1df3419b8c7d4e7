/* rlyeh: one executable, one subcommand per job. */
#include <stdio.h>
#include <string.h>

#include "rlyeh/admin.h"
#include "rlyeh/analyze.h"
#include "rlyeh/cdsolvecache.h"
#include "rlyeh/console.h"
#include "rlyeh/ctpicture.h"
#include "rlyeh/discord.h"
#include "rlyeh/export.h"
#include "rlyeh/replay.h"
#include "rlyeh/sim.h"

static const char usage[] =
    "Usage: rlyeh COMMAND [OPTIONS]\n"
    "A self-hosted chat bot that runs Cthulhu Dice, Elder Signs and the CTHULHU!!! board\n"
    "game in group chats.\n"
    "\n"
    "Commands:\n"
    "  run           run the bot on Discord (the daemon)\n"
    "  console       play in the terminal (a local channel), against computer players\n"
    "  sim           play computer-only games and print win rates as JSON\n"
    "  analyze       Cthulhu Dice under perfect play: win chance by seat, length\n"
    "  replay        replay a game script and print the state after every turn\n"
    "  export        write a stored game as a replay script\n"
    "  check-config  validate the configuration without starting\n"
    "  check-db      check the whole database for damage (read only)\n"
    "  backup        copy the database consistently while the daemon runs\n"
    "  restore       put a backup back in place (daemon stopped)\n"
    "  migrate-store copy an SQLite database into an empty PostgreSQL one\n"
    "\n"
    "  rlyeh COMMAND --help   help for one command\n"
    "  rlyeh --version        the version\n";

struct command {
	const char *name;
	int (*main)(int argc, char **argv);
};

static const struct command commands[] = {
	{ "run", discord_main },
	{ "console", console_main },
	{ "sim", sim_main },
	{ "replay", replay_main },
	{ "export", export_main },
	{ "check-config", admin_check_config },
	{ "check-db", admin_check_db },
	{ "backup", admin_backup },
	{ "restore", admin_restore },
	{ "analyze", analyze_main },
	{ "migrate-store", admin_migrate_store },
};

int main(int argc, char **argv)
{
	if (argc < 2) {
		fputs(usage, stderr);
		return 2;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		fputs(usage, stdout);
		return 0;
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("rlyeh %s\n", RLYEH_VERSION);
		return 0;
	}
	cdsolvecache_install();
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (strcmp(argv[1], commands[i].name) == 0) {
			int rc = commands[i].main(argc - 1, argv + 1);
			ctpicture_cleanup(); /* the map pictures' font caches, for leak checkers */
			return rc;
		}
	}
	fprintf(stderr, "rlyeh: unknown command '%s'\nTry 'rlyeh --help'.\n", argv[1]);
	return 2;
}
