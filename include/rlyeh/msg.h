/* msg: the neutral message model the bot speaks; each adapter maps it to
 * its own form (terminal lines, a Discord message with embed and buttons).
 *
 * Limits are within the strictest platform's: text up to 2000 bytes, 25 fields
 * (names up to 80 bytes, values up to 160),
 * 25 buttons (5 rows of 5), a button id up to 100 bytes.
 *
 * A message may also carry, each "none" while its fields are zero (so a
 * message built as before is unchanged):
 *  - a picture (msg_picture): PNG bytes and a file name, shown with the
 *    message. Discord: the embed's image "attachment://<name>", the file
 *    uploaded with the message; replacing a table message in place replaces
 *    its picture. Console: written to a file whose path is printed.
 *  - a select menu (msg_select, msg_option): one choice out of up to 25
 *    options, shown above the buttons. Its id has the buttons' form, and the
 *    choice becomes the id's command with the option's value appended as the
 *    last argument. With a select menu a message has at most 20 buttons
 *    (4 rows: Discord puts a select menu alone in one of its 5 rows).
 *  - buttons that ask for a line of text before they act (msg_ask): the
 *    text becomes the button's command's last argument, so a "move" button
 *    answered with "4,-2" is the same command as "/move 4,-2". Discord: a
 *    modal with one text input; console: the button shows its prompt.
 *
 * A table message may call a player (struct msg_call): the one the table
 * waits for, whom an adapter notifies (Discord: a mention in the new
 * message's content, allowed for that user alone).
 *
 * Sizes on x86-64: struct msg is 20,224 bytes (13,168 before select menus
 * and prompts): fields 6,050, buttons 4,900, the select menu 5,584 (25
 * options of 215), prompts 800, the call 376. A full list of MSG_LIST_MAX is 1.3 MB; lists
 * grow as messages are added (most hold one to four). Pictures are not
 * counted: they live apart, owned by the list. */
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

/* Select menus and prompts. Sizes are bytes including the NUL, within
 * Discord's limits in characters: an option's label, value and description
 * 100, a select menu's placeholder 150, a text input's placeholder 100, a
 * modal's title and an input's label 45. An option's value is 1 to 32 bytes
 * of '!'..'~' except '"': one word that can be typed. A prompt's text is a
 * command argument (at most CMD_ARG_MAX - 1 bytes). */
#define MSG_BUTTONS_SELECT 20 /* buttons at most beside a select menu (4 rows) */
#define MSG_OPTIONS_MAX    25
#define MSG_OPTION_LABEL   81
#define MSG_OPTION_VALUE   33
#define MSG_OPTION_DESC    101
#define MSG_PLACEHOLDER    101
#define MSG_PROMPTS_MAX    4 /* different prompts of one message */
#define MSG_PROMPT_TITLE   46
#define MSG_PROMPT_TEXT    64 /* bytes of a prompt's text, at most */
#define MSG_PICTURE_NAME   65 /* a picture's file name */
/* Bytes of one picture: under the HTTP client's 8 MiB cap on a request
 * (rest.h), leaving room for the message's JSON and the multipart framing;
 * within Discord's default upload limit of 10 MiB a file. */
#define MSG_PICTURE_MAX (7u << 20)

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
	int style;    /* enum msg_style */
	int prompt;   /* 0: acts at once; k: asks for text first, as msg.prompts[k - 1] says */
	int disabled; /* 1: shown but cannot be clicked, a choice not open now
	                 (msg_disable); 0 for every button built as before */
};

/* What a button asks for before it acts: one line of text. */
struct msg_prompt {
	char title[MSG_PROMPT_TITLE];      /* of the question ("Move") */
	char label[MSG_PROMPT_TITLE];      /* of the input ("Destination") */
	char placeholder[MSG_PLACEHOLDER]; /* shown while it is empty ("gx,gy"), may be "" */
	int max_len;                       /* bytes, 1 to MSG_PROMPT_TEXT */
};

/* An option of a select menu. */
struct msg_option {
	char label[MSG_OPTION_LABEL];
	char value[MSG_OPTION_VALUE];      /* the argument it gives the command */
	char description[MSG_OPTION_DESC]; /* "" for none */
};

/* A select menu: one choice among the options. No menu while id is "" or
 * there are no options. */
struct msg_select {
	char id[MSG_BUTTON_ID]; /* as a button's: "<game>:<move>:<command>[:<arg>]" */
	char placeholder[MSG_PLACEHOLDER];
	int noptions;
	struct msg_option options[MSG_OPTIONS_MAX];
};

/* Who a table message calls: the player the table waits for, to be
 * notified (Discord: a mention of that user alone in the new message's
 * content). No call while user is "". The text follows the player's name
 * or mention (", it is your move: /respond"); a reminder's says so. */
#define MSG_CALL_TEXT 241
struct msg_call {
	char user[MSG_USER_MAX]; /* the platform's id of the player */
	char name[MSG_USER_MAX]; /* their display name, for adapters that cannot mention */
	char text[MSG_CALL_TEXT];
	int reminder; /* 1: a reminder that the time for the move runs out */
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
	int nprompts;
	struct msg_prompt prompts[MSG_PROMPTS_MAX];
	struct msg_select select;
	/* The picture: picture_len PNG bytes, or NULL. The bytes belong to the
	 * list the message was given them in (msg_picture), not to the message:
	 * a struct msg copied by assignment shares them and owns nothing, so
	 * nothing is freed twice, and stays valid until that list is cleared or
	 * freed. msg_add_copy gives a copy bytes of its own. */
	const unsigned char *picture;
	size_t picture_len;
	char picture_name[MSG_PICTURE_NAME]; /* "map.png": [A-Za-z0-9_.-], ends ".png" */
	/* The picture as text, for a terminal (msg_picture_alt), or NULL;
	 * owned by the list as the picture's bytes are. */
	const char *picture_alt;
	struct msg_call call; /* tables: the player called, if any */
};

/* A growing list of messages (at most MSG_LIST_MAX; the last one then says
 * that more was cut). */
#define MSG_LIST_MAX 64

struct msg_list {
	int n;
	struct msg *m;
	int cap;
	unsigned char **pictures; /* the picture bytes the list owns */
	int npictures, cappictures;
};

/* Appends a zeroed message and returns it, or NULL when the list is full or
 * memory is short. */
struct msg *msg_add(struct msg_list *l, int audience, const char *user, int kind);

/* Appends a copy of *m (from another list, or none: adding may move l's own
 * messages) and returns
 * it; the copy's picture, if any, is a copy of the bytes that l owns, so it
 * outlives m's list. NULL when the list is full or memory is short (l is
 * unchanged then). */
struct msg *msg_add_copy(struct msg_list *l, const struct msg *m);

/* Empties the list, keeping the memory of its messages; frees the pictures it
 * owns. */
void msg_clear(struct msg_list *l);

/* Frees the list's memory and pictures; the list is then empty. */
void msg_free(struct msg_list *l);

/* Moves src's messages, with the pictures they show, onto the end of dst:
 * at once when dst is empty (the two lists trade places: no message is
 * copied), else one by one as msg_add_copy does. src is left empty (its
 * room kept). Returns 0, or -1 when memory is short: dst then has the
 * messages that fitted, src all of them still. */
int msg_take(struct msg_list *dst, struct msg_list *src);

/* Gives back the room l keeps beyond its messages (a list held a while:
 * messages are some 20 KB each). Pointers into l's messages are invalid
 * afterwards; when memory cannot be moved l stays as it was. */
void msg_fit(struct msg_list *l);

/* Adds a field (ignored when full). */
void msg_field(struct msg *m, const char *name, const char *value);

/* Adds a button with id "<game>:<move>:<command>[:<arg>]" and returns it;
 * ignored (NULL) when the message has MSG_BUTTONS_MAX buttons, or
 * MSG_BUTTONS_SELECT when it has a select menu. */
struct msg_button *msg_button(struct msg *m, int64_t game, int move, const char *command,
                              const char *arg, const char *label, int style);

/* Shows button b (NULL: nothing happens) as one that cannot be clicked: a
 * choice that exists but is not open now (CTHULHU!!! C11: "Spend n
 * bullets" without n bullets). Discord: the component's "disabled": true;
 * console: listed, marked unavailable, not selectable. A command that
 * still comes with its id is refused as any other. */
void msg_disable(struct msg_button *b);
/* Makes button b of m ask for a line of text before it acts: the question's
 * title, the input's label (title when NULL or ""), a placeholder (NULL or ""
 * for none) and the text's length in bytes, 1 to MSG_PROMPT_TEXT (0: that
 * maximum). Texts longer than their fields are cut at a UTF-8 boundary;
 * buttons asking the same share a prompt. Returns 0, or -1 with m unchanged
 * when b is not one of m's buttons, title is empty, max_len is out of range,
 * b's id is longer than 99 bytes (an adapter may prefix one byte to mark it)
 * or m already has MSG_PROMPTS_MAX other prompts. */
int msg_ask(struct msg *m, struct msg_button *b, const char *title, const char *label,
            const char *placeholder, int max_len);

/* Gives m a select menu with id "<game>:<move>:<command>[:<arg>]" and a
 * placeholder (NULL for none), replacing any it had (with its options).
 * Returns 0, or -1 with m unchanged when m has more than MSG_BUTTONS_SELECT
 * buttons. */
int msg_select(struct msg *m, int64_t game, int move, const char *command, const char *arg,
               const char *placeholder);

/* Adds an option to m's select menu: a label (cut to fit), the value the
 * choice gives as argument (1 to 32 bytes of '!'..'~' except '"': one word
 * that can be typed) and a description (NULL or "" for none, cut to fit).
 * Returns 0, or -1 with m unchanged when m has no select menu, it has
 * MSG_OPTIONS_MAX options, the label is empty or the value is not valid. */
int msg_option(struct msg *m, const char *label, const char *value, const char *description);

/* 1 when m shows a select menu (an id and at least one option). */
int msg_has_select(const struct msg *m);

/* 1 for a valid option value: 1 to MSG_OPTION_VALUE - 1 bytes of '!'..'~'
 * except '"'. Adapters check choices that come back with it. */
int msg_value_ok(const char *value);

/* 1 for a valid picture name: 1 to MSG_PICTURE_NAME - 1 bytes of A-Z a-z 0-9
 * _ . -, not starting with '.', ending in ".png" (so never a path). */
int msg_picture_name_ok(const char *name);

/* Gives m (which must be one of l's messages) a picture: a copy of the len
 * bytes of PNG at png, named `name` (1 to 64 bytes of A-Z a-z 0-9 _ . -, not
 * starting with '.', ending in ".png"). l owns the copy; a picture m had
 * before stays owned by l until l is cleared (copies of m may show it).
 * Returns 0, or -1 with m and l unchanged when the name is not valid, the
 * bytes do not start with the PNG signature, len exceeds MSG_PICTURE_MAX or
 * memory is short. */
int msg_picture(struct msg_list *l, struct msg *m, const char *name, const void *png, size_t len);

/* As msg_picture, but takes the malloc'd buffer *png instead of copying it:
 * on success l owns it and *png is set to NULL; on failure *png is the
 * caller's still. */
int msg_picture_take(struct msg_list *l, struct msg *m, const char *name, unsigned char **png,
                     size_t len);

/* Gives m's picture (m one of l's messages, with a picture) a text form
 * for terminals: a copy of `text` (up to MSG_PICTURE_ALT_MAX bytes), owned
 * by l. Adapters that show the picture itself ignore it. Returns 0, or -1
 * with m unchanged when m has no picture, the text is longer or memory is
 * short. */
#define MSG_PICTURE_ALT_MAX 16384
int msg_picture_alt(struct msg_list *l, struct msg *m, const char *text);

#endif
