/* log: one line per event on stderr, with the syslog priority prefix
 * ("<3>" error … "<7>" debug) that journald reads as the level. */
#ifndef RLYEH_LOG_H
#define RLYEH_LOG_H

enum log_level {
	LOG_ERR = 3,
	LOG_WARN = 4,
	LOG_NOTICE = 5,
	LOG_INFO = 6,
	LOG_DEBUG = 7,
};

/* Lines above `level` are dropped (default LOG_INFO). */
void log_set_level(int level);
int log_get_level(void);

/* Parses "error", "warning", "notice", "info", "debug"; -1 if unknown. */
int log_level_parse(const char *name);

/* Writes one line (newlines in the message are replaced by spaces; at most
 * 1024 bytes). */
void log_msg(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
