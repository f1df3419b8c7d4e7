/* cli: small helpers shared by the subcommands' command lines. */
#ifndef RLYEH_CLI_H
#define RLYEH_CLI_H

#include <stdint.h>

/* Parses a whole decimal integer in [min, max]. Returns 0, or -1 (out
 * untouched) for empty input, trailing characters or a value out of range. */
int cli_parse_ll(const char *s, long long min, long long max, long long *out);

/* Parses a whole decimal unsigned 64-bit integer. Returns 0 or -1. */
int cli_parse_u64(const char *s, uint64_t *out);

/* Prints "rlyeh <cmd>: <message>" and a hint to use --help on stderr;
 * returns the usage exit status, 2. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
