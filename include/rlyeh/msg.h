/* msg: the neutral message model the bot speaks; each adapter maps it to
 * its own form (terminal lines, a Discord message with embed and buttons).
 *
 * Limits are within the strictest platform's: text up to 2000 bytes, 25 fields
 * (names up to 80 bytes, values up to 160),
 * 25 buttons (5 rows of 5), a button id up to 100 bytes. */
#ifndef RLYEH_MSG_H
#define RLYEH_MSG_H

#include <stddef.h>
#include <stdint.h>

#define MSG_TEXT_MAX     2001
#define MSG_TITLE_MAX    257
#define MSG_FIELDS_MAX   25
#define MSG_FIELD_NAME   81
#define MSG_FIELD_VALUE  161
#define MSG_BUTTONS_MAX  25
#define MSG_BUTTON_ID    101
#define MSG_BUTTON_LABEL 81
#define MSG_USER_MAX     64

enum msg_audience {
	MSG_CHANNEL, /* everyone in the channel */
	MSG_PRIVATE, /* only msg.user */
};

enum msg_kind {
	MSG_TABLE, /* the table's state: adapters may replace the previous one in place */
	MSG_EVENT, /* what just happened */
	MSG_INFO,  /* help, rules, records */
	MSG_ERROR, /* a refused command; nothing changed */
};

enum msg_style {
	MSG_PRIMARY,
	MSG_SECONDARY,
	MSG_DANGER,
};

struct msg_field {
	char name[MSG_FIELD_NAME];
	char value[MSG_FIELD_VALUE];
};

/* A choice. The id is "<game>:<move>:<command>[:<argument>]", so a click on
 * an old message can be recognised and refused. */
struct msg_button {
	char id[MSG_BUTTON_ID];
	char label[MSG_BUTTON_LABEL];
	int style; /* enum msg_style */
};

struct msg {
	int audience; /* enum msg_audience */
	char user[MSG_USER_MAX];
	int kind;                   /* enum msg_kind */
	int64_t game;               /* the game it is about, 0 for none */
	char channel[MSG_USER_MAX]; /* the channel of that game, "" for none */
	char title[MSG_TITLE_MAX];
	char text[MSG_TEXT_MAX];
	int nfields;
	struct msg_field fields[MSG_FIELDS_MAX];
	int nbuttons;
	struct msg_button buttons[MSG_BUTTONS_MAX];
};

/* A growing list of messages (at most MSG_LIST_MAX; the last one then says
 * that more was cut). */
#define MSG_LIST_MAX 64

struct msg_list {
	int n;
	struct msg *m;
	int cap;
};

/* Appends a zeroed message and returns it, or NULL when the list is full or
 * memory is short. */
struct msg *msg_add(struct msg_list *l, int audience, const char *user, int kind);

/* Empties the list, keeping its memory. */
void msg_clear(struct msg_list *l);

/* Frees the list's memory; the list is then empty. */
void msg_free(struct msg_list *l);

/* Adds a field (ignored when full). */
void msg_field(struct msg *m, const char *name, const char *value);

/* Adds a button with id "<game>:<move>:<command>[:<arg>]" (ignored when full). */
void msg_button(struct msg *m, int64_t game, int move, const char *command, const char *arg,
                const char *label, int style);

#endif
