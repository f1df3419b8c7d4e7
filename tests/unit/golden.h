/* golden: text compared with a golden file of tests/golden, for the unit
 * tests that render transcripts. */
#ifndef RLYEH_TEST_GOLDEN_H
#define RLYEH_TEST_GOLDEN_H

#include <stddef.h>

/* Fails the running cmocka test unless got equals the file
 * $GOLDEN_DIR/folder/name (at most max bytes are read), naming the first
 * byte that differs. With the environment variable update set, got is
 * written to that file first. */
void golden_check(const char *folder, const char *name, const char *got, const char *update,
                  size_t max);

#endif
