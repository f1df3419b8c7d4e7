/* jsonarena: parsed JSON trees in a bump arena of the calling thread, so
 * that a payload read and let go costs neither a malloc nor a free per
 * node.
 *
 * cJSON allocates every node, key and string apart; a gateway event or an
 * HTTP answer is a tree of a hundred of them, read once and deleted. Here
 * they come from one 64 KiB block per thread, handed out in order and given
 * back all at once when the thread's last such tree is deleted. A tree that
 * outgrows the block takes the rest from malloc, as cJSON would.
 *
 * A tree built to be printed can come from the arena too: its nodes between
 * jsonarena_object and jsonarena_built, its printed text (after) from malloc.
 *
 * jsonarena_install() makes cJSON allocate through this module (its hooks
 * are process-wide); outside jsonarena_parse and a building, every
 * allocation goes to malloc and free as before. Nothing of an arena tree may
 * be detached and kept, or outlive jsonarena_delete. */
#ifndef RLYEH_JSONARENA_H
#define RLYEH_JSONARENA_H

#include <cjson/cJSON.h>
#include <stddef.h>

#define JSONARENA_BLOCK (64u << 10) /* bytes of a thread's arena */

/* Makes cJSON allocate through the arena's hooks. Call once, before any
 * cJSON use and before threads start; calling it again changes nothing. */
void jsonarena_install(void);

/* Parses len bytes of text (no NUL needed) as cJSON_ParseWithLength does,
 * into this thread's arena (malloc past its end, or when the hooks are not
 * installed or the block cannot be had). Returns the tree, or NULL for text
 * that is not JSON; either way the arena holds nothing more once every tree
 * it returned is given to jsonarena_delete. */
cJSON *jsonarena_parse(const char *text, size_t len);

/* Starts building a tree in this thread's arena: returns its root, an empty
 * object (NULL when memory is short; nothing is then started). Until
 * jsonarena_built, every cJSON allocation of this thread comes from the
 * arena: build the tree, call jsonarena_built, then print it (the text is
 * malloc'd, the caller's to cJSON_free) and give the root to
 * jsonarena_delete. */
cJSON *jsonarena_object(void);

/* Ends the building jsonarena_object started: cJSON allocates from malloc
 * again. */
void jsonarena_built(void);

/* Deletes a tree from jsonarena_parse or jsonarena_object (NULL: nothing happens). When it is
 * the thread's last live one, the arena starts over. */
void jsonarena_delete(cJSON *root);

/* Bytes this thread's arena has handed out since it last started over (for
 * tests). */
size_t jsonarena_used(void);

#endif
