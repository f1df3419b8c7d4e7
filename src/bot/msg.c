#include "rlyeh/msg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rlyeh/text.h"

static const unsigned char png_signature[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };

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

/* Makes room for k more buffers (pictures, their texts) in l's list of
 * owned ones; 0 or -1. */
static int reserve_pictures(struct msg_list *l, int k)
{
	if (l->npictures + k > l->cappictures) {
		int cap = l->cappictures ? l->cappictures * 2 : 4;
		unsigned char **bigger = realloc(l->pictures, (size_t)cap * sizeof(*bigger));
		if (!bigger)
			return -1;
		l->pictures = bigger;
		l->cappictures = cap;
	}
	return 0;
}

struct msg *msg_add_copy(struct msg_list *l, const struct msg *src)
{
	unsigned char *bytes = NULL;
	char *alt = NULL;
	struct msg *m;

	if (l->n >= MSG_LIST_MAX)
		return NULL;
	if (src->picture) {
		if (reserve_pictures(l, 2) || !(bytes = malloc(src->picture_len)))
			return NULL;
		memcpy(bytes, src->picture, src->picture_len);
		if (src->picture_alt && !(alt = strdup(src->picture_alt))) {
			free(bytes);
			return NULL;
		}
	}
	m = msg_add(l, src->audience, src->user, src->kind);
	if (!m) {
		free(bytes);
		free(alt);
		return NULL;
	}
	*m = *src;
	m->picture = bytes;
	m->picture_alt = alt;
	if (bytes)
		l->pictures[l->npictures++] = bytes;
	if (alt)
		l->pictures[l->npictures++] = (unsigned char *)alt;
	return m;
}

int msg_picture_alt(struct msg_list *l, struct msg *m, const char *text)
{
	char *copy;

	if (!m->picture || m < l->m || m >= l->m + l->n || strlen(text) > MSG_PICTURE_ALT_MAX ||
	    reserve_pictures(l, 1) || !(copy = strdup(text)))
		return -1;
	l->pictures[l->npictures++] = (unsigned char *)copy;
	m->picture_alt = copy;
	return 0;
}

void msg_clear(struct msg_list *l)
{
	for (int i = 0; i < l->npictures; i++)
		free(l->pictures[i]);
	l->npictures = 0;
	l->n = 0;
}

void msg_free(struct msg_list *l)
{
	msg_clear(l);
	free(l->pictures);
	l->pictures = NULL;
	l->cappictures = 0;
	free(l->m);
	l->m = NULL;
	l->n = 0;
	l->cap = 0;
}

int msg_take(struct msg_list *dst, struct msg_list *src)
{
	if (dst->n == 0 && dst->npictures == 0) {
		struct msg_list t = *dst;
		*dst = *src;
		*src = t;
		return 0;
	}
	for (int i = 0; i < src->n; i++)
		if (!msg_add_copy(dst, &src->m[i]))
			return -1;
	msg_clear(src);
	return 0;
}

void msg_fit(struct msg_list *l)
{
	struct msg *fit;

	if (l->n == l->cap)
		return;
	if (l->n == 0) {
		free(l->m);
		l->m = NULL;
		l->cap = 0;
		return;
	}
	if ((fit = realloc(l->m, (size_t)l->n * sizeof(*fit)))) {
		l->m = fit;
		l->cap = l->n;
	}
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

/* Writes the id "<game>:<move>:<command>[:<arg>]" of a button or select menu. */
static void make_id(char *id, size_t cap, int64_t game, int move, const char *command,
                    const char *arg)
{
	snprintf(id, cap, "%lld:%d:%s%s%.60s", (long long)game, move, command, arg ? ":" : "",
	         arg ? arg : "");
}

struct msg_button *msg_button(struct msg *m, int64_t game, int move, const char *command,
                              const char *arg, const char *label, int style)
{
	struct msg_button *b;

	if (m->nbuttons >= (m->select.id[0] ? MSG_BUTTONS_SELECT : MSG_BUTTONS_MAX))
		return NULL;
	b = &m->buttons[m->nbuttons++];
	make_id(b->id, sizeof(b->id), game, move, command, arg);
	text_copy(b->label, sizeof(b->label), label);
	b->style = style;
	return b;
}

void msg_disable(struct msg_button *b)
{
	if (b)
		b->disabled = 1;
}

int msg_ask(struct msg *m, struct msg_button *b, const char *title, const char *label,
            const char *placeholder, int max_len)
{
	struct msg_prompt p;
	int mine = 0;

	for (int i = 0; i < m->nbuttons && !mine; i++)
		mine = &m->buttons[i] == b;
	if (!mine || !title || !title[0] || max_len < 0 || max_len > MSG_PROMPT_TEXT ||
	    strlen(b->id) > MSG_BUTTON_ID - 2)
		return -1;
	memset(&p, 0, sizeof(p));
	text_copy(p.title, sizeof(p.title), title);
	text_copy(p.label, sizeof(p.label), label && label[0] ? label : title);
	text_copy(p.placeholder, sizeof(p.placeholder), placeholder ? placeholder : "");
	p.max_len = max_len ? max_len : MSG_PROMPT_TEXT;
	for (int k = 0; k < m->nprompts; k++) {
		const struct msg_prompt *q = &m->prompts[k];
		if (strcmp(q->title, p.title) == 0 && strcmp(q->label, p.label) == 0 &&
		    strcmp(q->placeholder, p.placeholder) == 0 && q->max_len == p.max_len) {
			b->prompt = k + 1;
			return 0;
		}
	}
	if (m->nprompts >= MSG_PROMPTS_MAX)
		return -1;
	m->prompts[m->nprompts++] = p;
	b->prompt = m->nprompts;
	return 0;
}

int msg_select(struct msg *m, int64_t game, int move, const char *command, const char *arg,
               const char *placeholder)
{
	if (m->nbuttons > MSG_BUTTONS_SELECT)
		return -1;
	memset(&m->select, 0, sizeof(m->select));
	make_id(m->select.id, sizeof(m->select.id), game, move, command, arg);
	text_copy(m->select.placeholder, sizeof(m->select.placeholder),
	          placeholder ? placeholder : "");
	return 0;
}

int msg_value_ok(const char *v)
{
	size_t n = strlen(v);

	if (n < 1 || n >= MSG_OPTION_VALUE)
		return 0;
	for (; *v; v++)
		if (*v < '!' || *v > '~' || *v == '"')
			return 0;
	return 1;
}

int msg_option(struct msg *m, const char *label, const char *value, const char *description)
{
	struct msg_option *o;

	if (!m->select.id[0] || m->select.noptions >= MSG_OPTIONS_MAX || !label || !label[0] ||
	    !value || !msg_value_ok(value))
		return -1;
	o = &m->select.options[m->select.noptions++];
	text_copy(o->label, sizeof(o->label), label);
	memcpy(o->value, value, strlen(value) + 1);
	text_copy(o->description, sizeof(o->description), description ? description : "");
	return 0;
}

int msg_has_select(const struct msg *m)
{
	return m->select.id[0] && m->select.noptions > 0;
}

int msg_picture_name_ok(const char *name)
{
	size_t n = strlen(name);

	if (n < 5 || n >= MSG_PICTURE_NAME || name[0] == '.' || strcmp(name + n - 4, ".png") != 0)
		return 0;
	for (const char *c = name; *c; c++)
		if (!((*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') ||
		      (*c >= '0' && *c <= '9') || *c == '_' || *c == '.' || *c == '-'))
			return 0;
	return 1;
}

/* The checks msg_picture and msg_picture_take share; 0 or -1. */
static int picture_ok(const struct msg_list *l, const struct msg *m, const char *name,
                      const void *png, size_t len)
{
	int mine = 0;

	for (int i = 0; i < l->n && !mine; i++)
		mine = &l->m[i] == m;
	return mine && name && msg_picture_name_ok(name) && png && len >= sizeof(png_signature) &&
	               len <= MSG_PICTURE_MAX &&
	               memcmp(png, png_signature, sizeof(png_signature)) == 0
	           ? 0
	           : -1;
}

int msg_picture_take(struct msg_list *l, struct msg *m, const char *name, unsigned char **png,
                     size_t len)
{
	if (!png || picture_ok(l, m, name, *png, len) || reserve_pictures(l, 1))
		return -1;
	l->pictures[l->npictures++] = *png;
	m->picture = *png;
	m->picture_len = len;
	memcpy(m->picture_name, name, strlen(name) + 1);
	*png = NULL;
	return 0;
}

int msg_picture(struct msg_list *l, struct msg *m, const char *name, const void *png, size_t len)
{
	unsigned char *copy;

	if (picture_ok(l, m, name, png, len))
		return -1;
	copy = malloc(len);
	if (!copy)
		return -1;
	memcpy(copy, png, len);
	if (msg_picture_take(l, m, name, &copy, len)) {
		free(copy);
		return -1;
	}
	return 0;
}
