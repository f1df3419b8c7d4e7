/* i18n: every string the bot shows, in English and Dutch (terms as in
 * shared/rules/cthulhu-dice.md). Texts take positional arguments {1}..{9}. */
#ifndef RLYEH_I18N_H
#define RLYEH_I18N_H

#include "rlyeh/text.h"

enum i18n_lang {
	I18N_EN,
	I18N_NL,
	I18N_LANGS,
};

enum i18n_id {
	S_LOBBY_TITLE,
	S_LOBBY_TEXT,
	S_COMPUTER_TAG,
	S_OWNER_TAG,
	S_BUTTON_JOIN,
	S_BUTTON_ADDBOT,
	S_BUTTON_START,
	S_BUTTON_LEAVE,
	S_BUTTON_REMATCH,
	S_LEFT,
	S_LOBBY_CLOSED,
	S_NEW_OWNER,
	S_RESIGNED,
	S_REMOVED,
	S_STARTED,
	S_REMATCH,
	S_ABORTED,
	S_TIMED_OUT,
	S_AUTOPILOT,
	S_BACK,
	S_LANGUAGE_SET,
	S_ERR_STORAGE,
	S_ERR_MEMORY,
	S_ERR_TABLE_EXISTS,
	S_ERR_OPEN_OPTION,
	S_ERR_NO_TABLE,
	S_ERR_ALREADY_STARTED,
	S_ERR_NOT_STARTED,
	S_ERR_OWNER_ONLY,
	S_ERR_TABLE_FULL,
	S_ERR_ALREADY_JOINED,
	S_ERR_NOT_MEMBER,
	S_ERR_POLICY,
	S_ERR_USAGE,
	S_ERR_NO_SUCH_MEMBER,
	S_ERR_REMOVE_OWNER,
	S_ERR_TOO_FEW,
	S_ERR_ABORT_RIGHTS,
	S_ERR_NO_FINISHED,
	S_ERR_ILLEGAL,
	S_ERR_LANGUAGE,
	S_ERR_STALE_GAME,
	S_ERR_STALE_MOVE,
	S_ERR_IDENTITY,
	S_ERR_UNKNOWN_COMMAND,
	S_ERR_NOT_COMMAND,
	S_ERR_ARGS,
	S_PRIVATE_TAG,
	S_HELP,
	S_CD_YELLOW_SIGN,
	S_CD_TENTACLE,
	S_CD_ELDER_SIGN,
	S_CD_CTHULHU,
	S_CD_EYE,
	S_CD_TITLE,
	S_CD_TITLE_RIVAL,
	S_CD_SANITY,
	S_CD_MAD,
	S_CD_POOL,
	S_CD_CASTER_TAG,
	S_CD_VICTIM_TAG,
	S_CD_BUTTON_RESPOND,
	S_CD_WAIT_CURSE,
	S_CD_WAIT_EYE,
	S_CD_WAIT_RESPOND,
	S_CD_OVER_WIN,
	S_CD_OVER_CTHULHU,
	S_CD_ERR_NOT_YOUR_MOVE,
	S_CD_ERR_NO_VICTIM,
	S_CD_ERR_SELF,
	S_CD_ERR_MAD,
	S_CD_ERR_WHICH,
	S_CD_ERR_FACE,
	S_CD_ERR_EYE_EYE,
	S_CD_N_CURSE,
	S_CD_N_ROLL,
	S_CD_N_RESPOND,
	S_CD_N_EYE,
	S_CD_N_LOSE,
	S_CD_N_GAIN,
	S_CD_N_TAKE,
	S_CD_N_NOTHING,
	S_CD_N_MAD,
	S_CD_N_SANE,
	S_CD_N_WIN,
	S_CD_N_WIN_RIVAL,
	S_CD_N_CTHULHU,
	S_CD_RULES,
	S_REC_ALL_TIME,
	S_REC_WEEK,
	S_REC_MONTH,
	S_REC_YEAR,
	S_REC_TITLE_SERVER,
	S_REC_TITLE_ALL,
	S_REC_RANK,
	S_REC_LINE,
	S_REC_EMPTY,
	S_REC_UNRANKED,
	S_REC_NO_GAMES,
	S_REC_STATS_SERVER,
	S_REC_STATS_ALL,
	S_REC_STATS_RANKED,
	S_REC_STATS_UNRANKED,
	I18N_COUNT,
};

/* The text of `id` in `lang` (English for an unknown language); never NULL. */
const char *i18n_get(int lang, int id);

/* The text of `id` with {k} replaced by the k-th argument; the arguments are
 * strings, ended by NULL. A missing argument leaves "{k}" as it is. */
void i18n_add(struct text *out, int lang, int id, ...);

/* The language of a locale or code ("nl", "nl-NL", "en-US"…); English
 * for anything else. */
int i18n_lang(const char *locale);

/* 1 when code is exactly a supported language code ("en", "nl"). */
int i18n_known(const char *code);

/* The code of a language ("en", "nl"). */
const char *i18n_code(int lang);

/* The raw catalog entry, NULL when missing (for tests). */
const char *i18n_raw(int lang, int id);

#endif
