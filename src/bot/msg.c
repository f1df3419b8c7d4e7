#include "rlyeh/msg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rlyeh/text.h"

struct msg *msg_add(struct msg_list *l, int audience, const char *user, int kind)
{
	struct msg *m;

	if (l->n >= MSG_LIST_MAX)
		return NULL;
	if (l->n == l->cap) {
		int cap = l->cap ? l->cap * 2 : 4;
		struct msg *bigger = realloc(l->m, (size_t)cap * sizeof(*bigger));
		if (!bigger)
			return NULL;
		l->m = bigger;
		l->cap = cap;
	}
	m = &l->m[l->n++];
	memset(m, 0, sizeof(*m));
	m->audience = audience;
	m->kind = kind;
	text_copy(m->user, sizeof(m->user), user ? user : "");
	return m;
}

void msg_clear(struct msg_list *l)
{
	l->n = 0;
}

void msg_free(struct msg_list *l)
{
	free(l->m);
	l->m = NULL;
	l->n = 0;
	l->cap = 0;
}

void msg_field(struct msg *m, const char *name, const char *value)
{
	struct msg_field *f;

	if (m->nfields >= MSG_FIELDS_MAX)
		return;
	f = &m->fields[m->nfields++];
	text_copy(f->name, sizeof(f->name), name);
	text_copy(f->value, sizeof(f->value), value);
}

void msg_button(struct msg *m, int64_t game, int move, const char *command, const char *arg,
                const char *label, int style)
{
	struct msg_button *b;

	if (m->nbuttons >= MSG_BUTTONS_MAX)
		return;
	b = &m->buttons[m->nbuttons++];
	snprintf(b->id, sizeof(b->id), "%lld:%d:%s%s%.60s", (long long)game, move, command,
	         arg ? ":" : "", arg ? arg : "");
	text_copy(b->label, sizeof(b->label), label);
	b->style = style;
}
