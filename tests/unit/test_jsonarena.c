/* jsonarena: parsed and built trees in the thread's arena, given back whole;
 * everything else still malloc'd. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rlyeh/jsonarena.h"

static const char doc[] = "{\"op\":0,\"t\":\"INTERACTION_CREATE\",\"s\":7,"
                          "\"d\":{\"id\":\"11\",\"token\":\"tok\",\"data\":{\"name\":\"curse\","
                          "\"options\":[{\"name\":\"victim\",\"value\":\"43\"}]}}}";

static int setup(void **unused)
{
	(void)unused;
	jsonarena_install();
	jsonarena_install(); /* twice: changes nothing */
	return 0;
}

/* A parsed tree reads as cJSON's own and lives in the arena, which starts
 * over once the tree is deleted. */
static void test_parse_and_give_back(void **unused)
{
	cJSON *root;
	const cJSON *d, *opt;
	size_t used;

	(void)unused;
	assert_int_equal(jsonarena_used(), 0);
	root = jsonarena_parse(doc, strlen(doc));
	assert_non_null(root);
	used = jsonarena_used();
	assert_true(used > 0 && used <= JSONARENA_BLOCK);
	d = cJSON_GetObjectItemCaseSensitive(root, "d");
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(root, "t")->valuestring,
	                    "INTERACTION_CREATE");
	assert_int_equal(cJSON_GetObjectItemCaseSensitive(root, "s")->valueint, 7);
	opt = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(
	                             cJSON_GetObjectItemCaseSensitive(d, "data"), "options"),
	                         0);
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(opt, "value")->valuestring, "43");
	jsonarena_delete(root);
	assert_int_equal(jsonarena_used(), 0);
	/* the same again takes the same room */
	root = jsonarena_parse(doc, strlen(doc));
	assert_int_equal(jsonarena_used(), used);
	jsonarena_delete(root);
	jsonarena_delete(NULL);
	assert_int_equal(jsonarena_used(), 0);
}

/* Only the length given is read (no NUL needed); text that is not JSON
 * gives NULL and leaves nothing behind. */
static void test_length_and_bad_text(void **unused)
{
	char buf[16];
	cJSON *root;

	(void)unused;
	memcpy(buf, "[1,2]xxxxxxxxxxx", 16);
	root = jsonarena_parse(buf, 5);
	assert_non_null(root);
	assert_int_equal(cJSON_GetArraySize(root), 2);
	jsonarena_delete(root);
	assert_null(jsonarena_parse("{\"a\":", 5));
	assert_null(jsonarena_parse("", 0));
	assert_int_equal(jsonarena_used(), 0);
}

/* Two trees alive at once: the arena starts over only after the last. */
static void test_nested(void **unused)
{
	cJSON *a, *b;
	size_t one;

	(void)unused;
	a = jsonarena_parse(doc, strlen(doc));
	one = jsonarena_used();
	b = jsonarena_parse(doc, strlen(doc));
	assert_int_equal(jsonarena_used(), 2 * one);
	jsonarena_delete(a);
	assert_int_equal(jsonarena_used(), 2 * one);
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(b, "t")->valuestring,
	                    "INTERACTION_CREATE");
	jsonarena_delete(b);
	assert_int_equal(jsonarena_used(), 0);
}

/* A tree bigger than the block takes the rest from malloc and is still
 * whole; its malloc'd part is freed with it (the sanitizers would say). */
static void test_bigger_than_the_block(void **unused)
{
	size_t n = 40000, len = 0;
	char *text = malloc(n * 4 + 3);
	cJSON *root;

	(void)unused;
	assert_non_null(text);
	text[len++] = '[';
	for (size_t i = 0; i < n; i++) {
		text[len++] = i ? ',' : ' ';
		text[len++] = (char)('0' + i % 10);
	}
	text[len++] = ']';
	root = jsonarena_parse(text, len);
	assert_non_null(root);
	assert_int_equal(cJSON_GetArraySize(root), (int)n);
	assert_int_equal(cJSON_GetArrayItem(root, (int)n - 1)->valueint, (int)((n - 1) % 10));
	assert_true(jsonarena_used() <= JSONARENA_BLOCK);
	jsonarena_delete(root);
	assert_int_equal(jsonarena_used(), 0);
	free(text);
}

/* A tree built in the arena prints to malloc'd text that outlives it;
 * trees made outside the arena are ordinary ones. */
static void test_build_and_print(void **unused)
{
	cJSON *root = jsonarena_object(), *plain;
	char *text, *other;

	(void)unused;
	assert_non_null(root);
	cJSON_AddNumberToObject(root, "type", 4);
	cJSON_AddStringToObject(cJSON_AddObjectToObject(root, "data"), "content", "Rolled: Eye");
	assert_true(jsonarena_used() > 0);
	jsonarena_built();
	text = cJSON_PrintUnformatted(root);
	jsonarena_delete(root);
	assert_int_equal(jsonarena_used(), 0);
	/* overwrite the arena with another tree: the text must not change */
	root = jsonarena_parse(doc, strlen(doc));
	plain = cJSON_CreateObject();
	cJSON_AddStringToObject(plain, "k", "v");
	other = cJSON_PrintUnformatted(plain);
	assert_string_equal(text, "{\"type\":4,\"data\":{\"content\":\"Rolled: Eye\"}}");
	assert_string_equal(other, "{\"k\":\"v\"}");
	jsonarena_delete(root);
	cJSON_Delete(plain);
	free(text);
	cJSON_free(other);
}

static void *other_thread(void *arg)
{
	cJSON *root = jsonarena_parse(doc, strlen(doc));
	size_t *used = arg;

	*used = jsonarena_used();
	jsonarena_delete(root);
	return NULL;
}

/* Each thread has its arena: another thread's parse leaves this one's alone
 * (and its block is freed as it ends: the leak checkers would say). */
static void test_per_thread(void **unused)
{
	cJSON *mine = jsonarena_parse(doc, strlen(doc));
	size_t before = jsonarena_used(), theirs = 0;
	pthread_t th;

	(void)unused;
	assert_int_equal(pthread_create(&th, NULL, other_thread, &theirs), 0);
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_int_equal(theirs, before);
	assert_int_equal(jsonarena_used(), before);
	jsonarena_delete(mine);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_and_give_back),
		cmocka_unit_test(test_length_and_bad_text),
		cmocka_unit_test(test_nested),
		cmocka_unit_test(test_bigger_than_the_block),
		cmocka_unit_test(test_build_and_print),
		cmocka_unit_test(test_per_thread),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
