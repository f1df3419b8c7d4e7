/* discord: the Discord adapter — slash commands, buttons, select menus and
 * modals in, messages out — and `rlyeh run`, the daemon.
 *
 * How the message model (msg.h) maps to Discord (API v10; the references are
 * Discord's developer documentation):
 *  - a table is an embed (title, description, fields, and its picture as the
 *    embed's image "attachment://<name>") with components below it: action
 *    rows (type 1), first one holding the select menu alone (a string select,
 *    type 3: custom_id, placeholder, min_values 1, max_values 1, options of
 *    label, value and description), then rows of up to 5 buttons (type 2);
 *    at most 5 rows ("Component Reference": Action Row, String Select,
 *    Legacy Message Component Behavior);
 *  - pictures go as "Uploading Files" says: the JSON lists them in
 *    "attachments" ([{"id": k, "filename": name}]) and the request carries
 *    them as the parts "files[k]" (rest.h); an edit's "attachments" lists the
 *    files the message keeps, so an edit with a new picture replaces the old
 *    one, and "attachments": [] removes it ("Editing Message Attachments");
 *  - a button that asks for text has the custom_id "?" + its id; a click on
 *    it is answered with a modal (interaction response type 9: custom_id,
 *    title, one action row holding a short text input, type 4 style 1), whose
 *    submission (interaction type 5, MODAL_SUBMIT) becomes the button's command
 *    with the text appended ("Receiving and Responding": Interaction Callback
 *    Type, Modal, Modal Submit Data Structure; "Using Modal Components");
 *  - a choice in a select menu (interaction type 3, data.values) becomes the
 *    menu's command with the chosen value appended;
 *  - what a command tells a channel is one new live message (the events, the
 *    table, its buttons, the call of the awaited player) and the live message
 *    before it loses its buttons ({"components": []}, which leaves the rest):
 *    for a click on a channel message the callback is type 7 freezing that
 *    message and the new one a follow-up; otherwise the callback is type 4
 *    with ?with_response=true (its answer names the new message) and the old
 *    one is frozen by a PATCH through the interaction's webhook, or the
 *    channel once the token has expired ("Receiving and Responding":
 *    Interaction Callback, with_response; "Edit Message"). */
#ifndef RLYEH_DISCORD_H
#define RLYEH_DISCORD_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "rlyeh/bot.h"
#include "rlyeh/msg.h"
#include "rlyeh/rest.h"

/* Flag of discord_response_json: DISCORD_EPHEMERAL gives "flags": 64 (only
 * the user sees it). */
#define DISCORD_EPHEMERAL 1

#define DISCORD_TEXT_INPUT "text" /* the custom_id of a modal's text input */

/* Strings a bot_req built from an interaction points into. */
struct discord_req {
	struct bot_req req;
	char id[32];     /* the interaction's id */
	char token[512]; /* the interaction's token (a secret: never logged) */
	int type;        /* 2 command, 3 component, 4 autocomplete, 5 modal submit */
	char server[64], channel[64], user[64], locale[16];
	char name[STORE_NAME_MAX]; /* the display name, escaped (discord_escape_name) */
	char message_id[32];       /* component or modal submit: the message it came from */
	int message_private;       /* that message is ephemeral (flags 64): a reply to one user */
	/* A click on a button that asks for text first (type 3, custom_id "?" +
	 * the button's id): req.cmd holds the button's command, but the answer
	 * is the modal (discord_modal_json), not the bot's. */
	int prompt;
	char button[MSG_BUTTON_ID];          /* prompt: the button's id, without "?" */
	char button_label[MSG_BUTTON_LABEL]; /* prompt: its label in that message, or "" */
	/* Autocomplete (type 4): the option being typed and what it holds so
	 * far (cut to CMD_ARG_MAX - 1 bytes). */
	char focus_option[33];
	char focus[CMD_ARG_MAX];
};

/* Writes the display name src into dst[0..cap-1] escaped for Discord's
 * markdown, so that every message, table and leaderboard shows it as it is:
 * a backslash before each of \ * _ ~ ` | < > [ ] @ (emphasis, underline,
 * strike-through, code, spoilers, quotes, masked links, mentions and
 * @everyone), and before a # - + or the . or ) after digits that would
 * begin the line (headings, lists); control characters become spaces. Cut
 * to fit (for names, STORE_NAME_MAX) between whole escapes and whole
 * UTF-8 sequences; returns 1 when cut. dst is always NUL-terminated.
 *
 * Why here: the bot and the store are platform-neutral and a name reaches
 * every text (tables, narration, refusals, the leaderboard) from the store,
 * so the name is escaped once, where a Discord user's name enters; the
 * terminal never passes here and shows names as they are. Button and menu
 * labels, which Discord does not render as markdown, are given back their
 * plain form by discord_plain; a name typed as it shows still names its
 * player (text_name_is). */
int discord_escape_name(char *dst, size_t cap, const char *src);

/* Copies src into dst[0..cap-1] without the escapes discord_escape_name
 * adds (a backslash before ASCII punctuation is dropped, the character
 * kept), for the texts Discord shows as they are: button labels, select
 * options and placeholders, modal titles and labels. Cut at a UTF-8
 * boundary; returns 1 when cut. */
int discord_plain(char *dst, size_t cap, const char *src);

/* Maps an INTERACTION_CREATE's data to a bot request: a slash command (type
 * 2), an autocomplete (4: the command in req.cmd without arguments, the
 * option being typed in focus_option and focus), a button or a select
 * menu's choice (3: data.custom_id, and for a select menu data.values
 * holding exactly one value, 1 to 32 bytes of '!'..'~' except '"'), or a
 * modal's submission (5: data.custom_id "?" + a button's id and the text
 * input DISCORD_TEXT_INPUT in data.components, within an action row or a
 * label component; its value, blanks trimmed, 1 to MSG_PROMPT_TEXT bytes
 * without control characters). What is read is capped: ids, tokens, custom
 * ids (100 bytes), values, and arrays (5 rows of 5 components, 25
 * options). Returns 0, or -1 with the reason in err (the interaction is
 * then answered with an error and nothing else happens). */
int discord_parse_interaction(const cJSON *d, struct discord_req *out, char *err, size_t errlen);

/* The slash-command definitions, for bulk overwrite: a JSON array the
 * caller frees. /addbot's policy is an autocomplete option (no static
 * choices): see discord_autocomplete_json. */
char *discord_commands_json(void);

/* The answer (interaction response type 8, APPLICATION_COMMAND_AUTOCOMPLETE_RESULT,
 * "Receiving and Responding": Autocomplete) to the autocomplete interaction
 * r, asked in a channel whose table plays `game` (an engine name, as
 * bot_channel_game gives; unknown or NULL: the default game). For /addbot's
 * policy: that game's computer policies whose name contains r->focus
 * (ASCII case ignored), in the game's order, each {"name", "value",
 * "name_localizations": {"nl"}}, the name in r's locale with the game's
 * default policy marked; for an action's option marked "@complete", what
 * the game that completes it offers (play.h: complete), named in r's
 * locale; for any other option none. At most 25 choices.
 * Caller frees; NULL when memory is short. */
char *discord_autocomplete_json(const struct discord_req *r, const char *game);

/* The body of an interaction response of `type` (4 message, 7 update) with
 * the messages *m[0..n-1] (events become the content, the last table its
 * embed and components; without a table, the components of the last message
 * that has buttons or a select menu, such as a private reply's choices);
 * type 0 gives a bare message body (followups,
 * channel messages). `flags`: 0 or DISCORD_EPHEMERAL. With pictures (those of the last
 * table and of the events, see discord_response_files) the body lists them
 * in "attachments" and must be sent with those files as payload_json. A
 * message without picture, select menu or prompt gives the same bytes as
 * before any of these existed.
 *
 * The content is the events' texts, one line break between them, then the
 * call of a public table (its mention "<@id>" and text); when they do not
 * fit 2,000 bytes the earliest whole lines give way to "…". allowed_mentions
 * is {"parse": []} with "users": [that id] when a public table calls a
 * snowflake, so nobody else is ever pinged. Caller frees; NULL when memory
 * is short. */
char *discord_response_json(int type, const struct msg *const *m, int n, int flags);

/* The id of the message a response's body tells of: a message object's "id" (a follow-up, a channel
 * post), or for an interaction callback with ?with_response=true its
 * interaction.response_message_id, else resource.message.id. Copied to id
 * (DISCORD_SNOWFLAKE_MAX bytes); "" when body (may be NULL) tells none. */
#define DISCORD_SNOWFLAKE_MAX 21
void discord_response_message_id(const char *body, char *id);

/* The files that discord_response_json's body for the same messages refers
 * to, written to files[0..k-1] (at most REST_MAX_FILES), k returned: the
 * picture of the last table first, then those of the other messages in
 * order, a file name already taken left out. Each is the part "files[j]"
 * with content type image/png; names and bytes are borrowed from the
 * messages (valid while they are). */
int discord_response_files(const struct msg *const *m, int n, struct rest_file *files);

/* The interaction response (type 9) to a click on a button that asks for
 * text: a modal with custom_id "?" + `button` (the button's id), prompt p's
 * title and one short text input (custom_id DISCORD_TEXT_INPUT, p's label
 * and placeholder, 1 to p->max_len long, required). p NULL (a prompt not
 * known any more, e.g. after a restart): title and input label are `label`
 * (the button's, cut to 45 bytes) or the button's command when that is
 * empty, with no placeholder and MSG_PROMPT_TEXT at most. Caller frees;
 * NULL when memory is short or the custom_id would exceed 100 bytes. */
char *discord_modal_json(const char *button, const struct msg_prompt *p, const char *label);

/* `rlyeh run [--config FILE]`: returns the process exit status. */
int discord_main(int argc, char **argv);

#endif
