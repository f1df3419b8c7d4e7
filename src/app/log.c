#include "rlyeh/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int threshold = LOG_INFO;

void log_set_level(int level)
{
	threshold = level;
}

int log_get_level(void)
{
	return threshold;
}

int log_level_parse(const char *name)
{
	static const struct {
		const char *name;
		int level;
	} levels[] = {
		{ "error", LOG_ERR }, { "warning", LOG_WARN }, { "notice", LOG_NOTICE },
		{ "info", LOG_INFO }, { "debug", LOG_DEBUG },
	};

	for (size_t i = 0; i < sizeof(levels) / sizeof(levels[0]); i++)
		if (strcmp(name, levels[i].name) == 0)
			return levels[i].level;
	return -1;
}

void log_msg(int level, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	if (level > threshold)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	for (char *p = line; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	fprintf(stderr, "<%d>%s\n", level, line);
}
