#include "rlyeh/playlog.h"

#include <stdlib.h>
#include <string.h>

#include "rlyeh/msg.h"

/* The narration gathered so far: whole lines in buf[0..len), each ending
 * in '\n'. */
struct story {
	char *buf;
	size_t len;
	int dropped;
};

/* Appends the lines of `lines` to s; when they would pass PLAYLOG_BYTES,
 * drops the oldest lines first (at least a quarter of the buffer). */
static void add_lines(struct story *s, const char *lines, size_t n)
{
	if (n >= PLAYLOG_BYTES / 2)
		return; /* one move tells far less; a game that does not is cut */
	if (s->len + n > PLAYLOG_BYTES) {
		size_t cut = PLAYLOG_BYTES / 4;
		const char *nl;
		if (cut < n)
			cut = n;
		nl = memchr(s->buf + cut, '\n', s->len - cut);
		cut = nl ? (size_t)(nl - s->buf) + 1 : s->len;
		memmove(s->buf, s->buf + cut, s->len - cut);
		s->len -= cut;
		s->dropped = 1;
	}
	memcpy(s->buf + s->len, lines, n);
	s->len += n;
}

/* Events applied and not yet told, for a game that folds them (play.h:
 * fold): those of one command, as the table told them together. */
struct pending {
	struct game_event ev[PLAYLOG_FOLD_EVENTS];
	int n;
	int64_t at; /* when the command that made them was stored */
};

/* Tells lines[] (text, possibly without a final '\n') into s. */
static void add_text(struct story *s, char *lines, size_t len)
{
	if (len == 0)
		return;
	if (lines[len - 1] != '\n')
		lines[len++] = '\n';
	add_lines(s, lines, len);
}

/* Tells the gathered events through the game's fold; none stay gathered. */
static void flush(const struct play_game *game, const void *state, const struct play_ctx *c,
                  struct pending *p, struct story *s, char *lines, size_t cap)
{
	struct text tx;

	if (p->n == 0)
		return;
	text_init(&tx, lines, cap - 1);
	game->fold(state, p->ev, p->n, c, &tx);
	p->n = 0;
	add_text(s, lines, tx.len);
}

/* Replays g into s: each apply narrated at once, or, for a game that folds,
 * the events of one command (the stored moves of one instant with no other
 * event between them, as the bot gathered them) folded together. Returns 0,
 * -1 when a move does not apply, -2 out of memory. */
static int replay(const struct play_game *game, const struct store_loaded *g, int lang,
                  struct story *s)
{
	_Alignas(max_align_t) unsigned char state[PLAY_STATE_MAX];
	struct play_ctx c = { .row = g->game, .m = g->members, .nm = g->nmembers, .lang = lang };
	struct game_events ev;
	struct pending *p = NULL;
	char *lines = malloc(PLAYLOG_FOLD_TEXT);
	struct text tx;
	int rc = 0;

	if (!lines || (game->fold && !(p = calloc(1, sizeof(*p))))) {
		free(lines);
		return -2;
	}
	if (play_log_init(game, g->game, g->nmembers, state) != GAME_OK)
		rc = -1;
	for (int i = 0; i < g->nevents && rc == 0; i++) {
		const struct store_event *e = &g->events[i];
		int k = play_log_apply(game, state, e, &ev);
		if (k < 0) {
			rc = -1;
			break;
		}
		if (p && (k == 0 || e->at != p->at || p->n + ev.n > PLAYLOG_FOLD_EVENTS))
			flush(game, state, &c, p, s, lines, PLAYLOG_FOLD_TEXT);
		if (k == 0 || ev.n == 0)
			continue;
		if (p) {
			memcpy(p->ev + p->n, ev.ev, (size_t)ev.n * sizeof(ev.ev[0]));
			p->n += ev.n;
			p->at = e->at;
			continue;
		}
		text_init(&tx, lines, PLAYLOG_FOLD_TEXT - 1);
		game->narrate(state, ev.ev, ev.n, &c, &tx);
		add_text(s, lines, tx.len);
	}
	if (p && rc == 0)
		flush(game, state, &c, p, s, lines, PLAYLOG_FOLD_TEXT);
	free(p);
	free(lines);
	return rc;
}

/* The start of the page that ends at `end` in s: as many whole lines
 * before it as fit in PLAYLOG_PAGE bytes, at least one. */
static size_t page_start(const struct story *s, size_t end)
{
	size_t start = end;

	while (start > 0) {
		size_t prev = start - 1; /* the '\n' ending the line before start */
		while (prev > 0 && s->buf[prev - 1] != '\n')
			prev--;
		if (end - prev > PLAYLOG_PAGE && start != end)
			break;
		start = prev;
	}
	return start;
}

int playlog_page(const struct play_game *game, const struct store_loaded *g, int lang, int page,
                 struct text *out, int *pages, int *dropped)
{
	struct story s = { 0 };
	size_t start, end;
	int k = 0, rc;

	*pages = 0;
	*dropped = 0;
	if (g->nmembers > STORE_MEMBERS_MAX)
		return -1;
	if (!(s.buf = malloc(PLAYLOG_BYTES)))
		return -2;
	if ((rc = replay(game, g, lang, &s))) {
		free(s.buf);
		return rc;
	}
	*dropped = s.dropped;
	for (end = s.len; end > 0; end = page_start(&s, end))
		(*pages)++;
	if (page < 1 || page > *pages) {
		free(s.buf);
		return *pages == 0 && page == 1 ? 0 : -3;
	}
	end = s.len;
	for (k = 1; k < page; k++)
		end = page_start(&s, end);
	start = page_start(&s, end);
	if (end - start > PLAYLOG_PAGE) { /* one line longer than a page: its end */
		start = end - PLAYLOG_PAGE;
		while (start < end && (s.buf[start] & 0xC0) == 0x80)
			start++;
	}
	s.buf[end - 1] = '\0'; /* the last line's '\n' */
	text_add(out, s.buf + start);
	free(s.buf);
	return 0;
}
