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

/* Replays g into s. Returns 0, or -1 when a move does not apply. */
static int replay(const struct play_game *game, const struct store_loaded *g, int lang,
                  struct story *s)
{
	_Alignas(max_align_t) unsigned char state[PLAY_STATE_MAX];
	struct play_ctx c = { .row = g->game, .m = g->members, .nm = g->nmembers, .lang = lang };
	struct game_setup setup;
	struct game_events ev;
	char lines[MSG_TEXT_MAX];
	struct text tx;

	game->setup(g->game, g->nmembers, &setup);
	setup.first = g->game->first;
	if (game->ops->init(state, &setup) != GAME_OK)
		return -1;
	for (int i = 0; i < g->nevents; i++) {
		int rc = play_log_apply(game, state, &g->events[i], &ev);
		if (rc < 0)
			return -1;
		if (rc == 0 || ev.n == 0)
			continue;
		text_init(&tx, lines, sizeof(lines));
		game->narrate(state, ev.ev, ev.n, &c, &tx);
		if (tx.len && lines[tx.len - 1] != '\n')
			text_add(&tx, "\n");
		add_lines(s, lines, strlen(lines));
	}
	return 0;
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
	int k = 0;

	*pages = 0;
	*dropped = 0;
	if (g->nmembers > STORE_MEMBERS_MAX)
		return -1;
	if (!(s.buf = malloc(PLAYLOG_BYTES)))
		return -2;
	if (replay(game, g, lang, &s)) {
		free(s.buf);
		return -1;
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
