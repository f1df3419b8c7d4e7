/* ctplay_int.h: what the files of the board game at the table share and
 * nothing outside them sees (the public interface is rlyeh/ctplay.h):
 *   ctplay.c   settings, actions, timing, narration, preferences, the play_game table
 *   ctawait.c  the awaited decision: options, hidden choices, labels, menus
 *   ctaction.c players' commands into engine values, walking, whose turn it is
 *   cttable.c  the table message: picture, marks, public choices, the end
 *   ctview.c   the private views
 * Names: ctplay_* is public; ctp_* is shared between these files only, declared
 * below under the file that defines it; ACT_* are the actions' codes.
 * Everything else is static to its file. */
#ifndef RLYEH_CTPLAY_INT_H
#define RLYEH_CTPLAY_INT_H

#include "rlyeh/ctplay.h"

#include "rlyeh/ctgame.h"
#include "rlyeh/ctpicture.h"
#include "rlyeh/msg.h"
#include "rlyeh/text.h"

/* The actions' codes (actions[] in ctplay.c). */
enum {
	ACT_PICK,
	ACT_PLACE,
	ACT_CONFIRM,
	ACT_TOKENS,
	ACT_MOVE,
	ACT_HAND,
	ACT_PAGE,
	ACT_AUTOPASS,
	ACT_WEAPON,
	ACT_RELICS,
	ACT_LOSE,
	ACT_MAP,
	ACT_CARD,
	ACT_DISCARDS,
};

#define PAGE MSG_OPTIONS_MAX /* options on one page of a select menu */

/* ctplay.c */
int ctp_whole(const char *s, int lo, int hi, int *out);
int ctp_is(const char *word, const char *en, const char *nl);
int ctp_member_of(const void *state, int seat);
void ctp_seat_name(const void *state, const struct play_ctx *c, int seat, char *buf, size_t cap);
void ctp_names_of(const struct play_ctx *c, const char *names[CTGAME_MAX]);

/* ctawait.c */
int ctp_pending(const struct ctgame *g, struct game_step *st, struct ctgame_option *o);
int ctp_hidden(const struct ctgame *g, const struct game_step *st, const struct ctgame_option *o,
               int n);
void ctp_label(const struct ctgame *g, const struct game_step *st, const struct ctgame_option *o,
               const struct play_ctx *c, char *buf, size_t cap);
void ctp_number(char *buf, size_t cap, long n);
void ctp_describe(const struct game_step *st, const struct ctgame_option *o, int lang, char *buf,
                  size_t cap);
void ctp_menu(const struct ctgame *g, const struct game_step *st, const struct ctgame_option *o,
              int n, int from, const char *command, const struct play_ctx *c, struct msg *m);
void ctp_pick_button(const struct ctgame *g, const struct game_step *st,
                     const struct ctgame_option *o, int i, const struct play_ctx *c, struct msg *m);
void ctp_all_options(const struct ctgame *g, const struct game_step *st,
                     const struct ctgame_option *o, int n, const struct play_ctx *c, struct msg *m);
void ctp_waiting(const struct ctgame *g, const struct game_step *st, const struct play_ctx *c,
                 struct text *out);

/* ctaction.c */
int ctp_first_step(const struct ctgame *g, const struct ctgame_option *o, int n, int to);
int ctp_read_counts(const char *s, int *n);
void ctp_write_counts(const int *n, char *buf, size_t cap);
int ctp_need_turn(const struct ctgame *g, const struct game_step *st, const struct play_ctx *c,
                  int who, struct text *err);
int ctp_awaits(const void *state, const struct play_ctx *c, int who, struct text *out);
int ctp_option_number(const struct cmd *cmd, int n, const struct play_ctx *c, struct text *err);
int ctp_action(const void *state, const struct play_ctx *c, int who, const struct cmd *cmd,
               int *value, struct text *err);
int ctp_hunt_note(const struct ctgame *g);
int ctp_noted_walk(const struct ctgame *g, int note, int *gx, int *gy);
int ctp_follow(const void *state, const struct play_ctx *c, int who, struct cmd *cmd,
               const struct game_event *ev, int nev, int *value, int *note);
int ctp_auto_roll(const void *state, const struct game_step *step);

/* cttable.c */
void ctp_marks_for(const struct ctgame *g, struct ctpicture_marks *mk, struct ctmap_option *options,
                   int16_t *reach);
int ctp_picture(const void *state, const struct play_ctx *c, unsigned char **png, size_t *len,
                char *alt, size_t altcap);
void ctp_render(const void *state, const struct play_ctx *c, struct msg *m);

/* ctview.c */
int ctp_view(const void *state, const struct play_ctx *c, int who, const struct cmd *cmd,
             const char *user, struct msg_list *out);

#endif
