#include "rlyeh/admin.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "rlyeh/cli.h"
#include "rlyeh/config.h"
#include "rlyeh/store.h"

int admin_check_config(int argc, char **argv)
{
	struct config c;
	char err[1024], shown[512];
	const char *path = argc > 1 ? argv[1] : NULL;

	if (argc > 2 || (path && (strcmp(path, "--help") == 0 || strcmp(path, "-h") == 0))) {
		fputs(
		    "Usage: rlyeh check-config [FILE]\n"
		    "Validate a configuration file and the RLYEH_* environment without starting.\n"
		    "Exit status 0 when valid, 1 when refused (file, line and reason on stderr).\n",
		    argc > 2 ? stderr : stdout);
		return argc > 2 ? 2 : 0;
	}
	config_default(&c);
	if (config_load(&c, path, err, sizeof(err))) {
		fprintf(stderr, "rlyeh check-config: %s\n", err);
		return 1;
	}
	store_describe(c.database, shown, sizeof(shown));
	switch (config_load_token(&c, err, sizeof(err))) {
	case 0:
		printf("%s: valid; database %s; token found\n", path ? path : "(environment)",
		       shown);
		return 0;
	case 1:
		printf("%s: valid; database %s; no token yet (set RLYEH_TOKEN, token_file or a "
		       "systemd credential)\n",
		       path ? path : "(environment)", shown);
		return 0;
	default:
		fprintf(stderr, "rlyeh check-config: %s\n", err);
		return 1;
	}
}

/* Parses "ARG [--db PATH | --config FILE]" into the argument and the
 * database path. 0, or an exit status after printing why. */
static int db_args(const char *cmd, const char *usage, int argc, char **argv, const char **arg,
                   char *db, size_t cap)
{
	static const struct option longopts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "config", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dbopt = NULL, *config = NULL;
	struct config c;
	char err[1024];
	int opt;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (opt) {
		case 'd':
			dbopt = optarg;
			break;
		case 'c':
			config = optarg;
			break;
		case 'h':
			fputs(usage, stdout);
			return -1;
		default:
			return cli_usage_error(cmd, "unknown option");
		}
	}
	if (optind != argc - 1)
		return cli_usage_error(cmd, "expected one path");
	*arg = argv[optind];
	config_default(&c);
	if (config_load(&c, config, err, sizeof(err))) {
		fprintf(stderr, "rlyeh %s: %s\n", cmd, err);
		return 1;
	}
	snprintf(db, cap, "%s", dbopt ? dbopt : c.database);
	return 0;
}

int admin_check_db(int argc, char **argv)
{
	static const char usage[] =
	    "Usage: rlyeh check-db [--db PATH | --config FILE]\n"
	    "Check the whole SQLite database for damage (PRAGMA integrity_check: every page,\n"
	    "record and index), reading it only; the daemon may keep running.\n"
	    "Exit status 0 when intact, 1 when damaged or unreadable (the problems on stderr).\n"
	    "A damaged database is put back from a backup with rlyeh restore.\n"
	    "A PostgreSQL database keeps its own pages: check it on the server with amcheck\n"
	    "(pg_amcheck) or by reading it all with pg_dump -f /dev/null 'postgresql://...'.\n";
	static const struct option longopts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "config", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dbopt = NULL, *config = NULL, *db;
	char err[1024], report[2048], shown[512];
	struct config c;
	int opt, rc;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (opt) {
		case 'd':
			dbopt = optarg;
			break;
		case 'c':
			config = optarg;
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			return cli_usage_error("check-db", "unknown option");
		}
	}
	if (optind != argc)
		return cli_usage_error("check-db", "unexpected argument '%s'", argv[optind]);
	config_default(&c);
	if (config_load(&c, config, err, sizeof(err))) {
		fprintf(stderr, "rlyeh check-db: %s\n", err);
		return 1;
	}
	db = dbopt ? dbopt : c.database;
	store_describe(db, shown, sizeof(shown));
	if (!store_is_postgresql(db) && access(db, F_OK)) {
		fprintf(stderr, "rlyeh check-db: %s: no such database\n", db);
		return 1;
	}
	rc = store_check(db, 1, report, sizeof(report));
	switch (rc) {
	case 0:
		printf("%s: intact (integrity_check ok)\n", shown);
		return 0;
	case 1:
		fprintf(stderr,
		        "rlyeh check-db: %s is damaged: %s\nPut the latest backup in its place "
		        "with the daemon stopped: rlyeh restore BACKUP --db %s\n",
		        shown, report, shown);
		return 1;
	case 2:
		printf("%s: PostgreSQL keeps and checks its own pages; check it on the server "
		       "with amcheck (pg_amcheck) or read it all with pg_dump -f /dev/null\n",
		       shown);
		return 0;
	default:
		fprintf(stderr, "rlyeh check-db: %s\n", report);
		return 1;
	}
}

/* rlyeh backup DEST and rlyeh restore BACKUP: the database (from --db or
 * --config) copied to the file argument, or replaced by it when restore is
 * set. The exit status; the database is unchanged when a restore fails. */
static int copy_file(const char *cmd, const char *usage, int argc, char **argv, int restore)
{
	char db[CONFIG_PATH_MAX], err[1024];
	const char *file = NULL;
	int rc = db_args(cmd, usage, argc, argv, &file, db, sizeof(db));

	if (rc)
		return rc < 0 ? 0 : rc;
	rc = restore ? store_restore_file(file, db, err, sizeof(err))
	             : store_backup_file(db, file, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "rlyeh %s: %s\n", cmd, err);
		return 1;
	}
	if (restore)
		printf("restored %s from %s\n", db, file);
	else
		printf("backed up %s to %s (integrity ok)\n", db, file);
	return 0;
}

int admin_backup(int argc, char **argv)
{
	static const char usage[] =
	    "Usage: rlyeh backup DEST [--db PATH | --config FILE]\n"
	    "Copy the database consistently (SQLite online backup) into the new file DEST,\n"
	    "while the daemon runs, and check the copy's integrity.\n"
	    "A PostgreSQL database (database = postgresql://...) is backed up with pg_dump:\n"
	    "  pg_dump -Fc -f rlyeh.dump 'postgresql://...'\n";

	return copy_file("backup", usage, argc, argv, 0);
}

int admin_restore(int argc, char **argv)
{
	static const char usage[] =
	    "Usage: rlyeh restore BACKUP [--db PATH | --config FILE]\n"
	    "Replace the database with BACKUP after checking that it is an intact rlyeh\n"
	    "database no newer than this program. Stop the daemon first: a database in use\n"
	    "is refused. Unfinished games in the backup resume when the daemon starts.\n"
	    "A PostgreSQL database is restored with pg_restore (or psql for a plain dump):\n"
	    "  pg_restore --clean -d 'postgresql://...' rlyeh.dump\n";

	return copy_file("restore", usage, argc, argv, 1);
}

int admin_migrate_store(int argc, char **argv)
{
	static const char usage[] =
	    "Usage: rlyeh migrate-store FROM TO\n"
	    "Copy the SQLite database FROM (a file) into the PostgreSQL database TO (a\n"
	    "postgresql:// or postgres:// URI), which must be new and empty: games, members,\n"
	    "event logs, players, settings and ratings, in one transaction, then check that\n"
	    "every table has as many rows as its source. FROM is first brought to this\n"
	    "rlyeh's schema, as the daemon would. Stop the daemon first; afterwards set\n"
	    "database = TO in the configuration.\n"
	    "  rlyeh migrate-store /var/lib/rlyeh/rlyeh.db 'postgresql://rlyeh@/rlyeh'\n";
	char err[1024];

	if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		fputs(usage, stdout);
		return 0;
	}
	if (argc != 3)
		return cli_usage_error("migrate-store", "expected FROM and TO");
	if (store_migrate(argv[1], argv[2], err, sizeof(err))) {
		fprintf(stderr, "rlyeh migrate-store: %s\n", err);
		return 1;
	}
	printf("copied %s into the PostgreSQL database (row counts checked)\n", argv[1]);
	return 0;
}
