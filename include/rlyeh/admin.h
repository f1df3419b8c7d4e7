/* admin: the host's commands — check-config, backup, restore. */
#ifndef RLYEH_ADMIN_H
#define RLYEH_ADMIN_H

/* `rlyeh check-config [FILE]`: exit status 0 valid, 1 refused (the file,
 * line and reason on stderr). */
int admin_check_config(int argc, char **argv);

/* `rlyeh backup DEST [--db PATH | --config FILE]`. */
int admin_backup(int argc, char **argv);

/* `rlyeh restore BACKUP [--db PATH | --config FILE]`. */
int admin_restore(int argc, char **argv);

#endif
