/* admin: the host's commands — check-config, check-db, backup, restore,
 * migrate-store. */
#ifndef RLYEH_ADMIN_H
#define RLYEH_ADMIN_H

/* `rlyeh check-config [FILE]`: exit status 0 valid, 1 refused (the file,
 * line and reason on stderr). */
int admin_check_config(int argc, char **argv);

/* `rlyeh check-db [--db PATH | --config FILE]`: PRAGMA integrity_check of
 * the SQLite database, read only; exit status 0 intact, 1 damaged or not
 * checked (the reason on stderr). */
int admin_check_db(int argc, char **argv);

/* `rlyeh backup DEST [--db PATH | --config FILE]`. */
int admin_backup(int argc, char **argv);

/* `rlyeh restore BACKUP [--db PATH | --config FILE]`. */
int admin_restore(int argc, char **argv);

/* `rlyeh migrate-store FROM TO`: copies the SQLite database FROM into the
 * empty PostgreSQL database TO (store_migrate). */
int admin_migrate_store(int argc, char **argv);

#endif
