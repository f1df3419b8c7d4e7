/* ctpicpng: the map picture as PNG (libpng), and the cache of the last pictures
 * made, shared by every game of the process. */
#include "ctpicture_int.h"

#include <errno.h>
#include <png.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- PNG ---- */

/* The encoder's settings: on these flat-coloured maps, zlib level 3 with no
 * row filter gives files as small as cairo's (level 6, every filter tried
 * on every row) in a quarter of the time. */
#define PNG_LEVEL 3

/* A growing buffer capped at CTPICTURE_PNG_MAX; over = 1 once a write did not
 * fit or memory ran out. */
struct sink {
	unsigned char *buf;
	size_t len, cap;
	int over;
};

static void sink_write(png_structp pp, png_bytep data, size_t n)
{
	struct sink *k = png_get_io_ptr(pp);

	if (k->over || n > CTPICTURE_PNG_MAX - k->len) {
		k->over = 1;
		return;
	}
	if (k->len + n > k->cap) {
		size_t cap = k->cap ? k->cap : 64 * 1024;
		unsigned char *p;

		while (cap < k->len + n)
			cap *= 2;
		cap = cap < CTPICTURE_PNG_MAX ? cap : CTPICTURE_PNG_MAX;
		p = realloc(k->buf, cap);
		if (!p) {
			k->over = 1;
			return;
		}
		k->buf = p;
		k->cap = cap;
	}
	memcpy(k->buf + k->len, data, n);
	k->len += n;
}

static void sink_flush(png_structp pp)
{
	(void)pp;
}

/* Writes the rows of an RGB24 surface as an 8-bit RGB PNG into k, through
 * `row` (3 * width bytes). Returns 0, or -1 (k's bytes then unspecified). */
static int encode(cairo_surface_t *s, unsigned char *row, struct sink *k)
{
	png_structp pp = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
	png_infop ip = pp ? png_create_info_struct(pp) : NULL;
	int w = cairo_image_surface_get_width(s), h = cairo_image_surface_get_height(s);
	int stride = cairo_image_surface_get_stride(s);
	const unsigned char *data = cairo_image_surface_get_data(s);

	if (!ip || !data || setjmp(png_jmpbuf(pp))) {
		png_destroy_write_struct(&pp, &ip);
		return -1;
	}
	png_set_write_fn(pp, k, sink_write, sink_flush);
	png_set_compression_level(pp, PNG_LEVEL);
	png_set_filter(pp, PNG_FILTER_TYPE_BASE, PNG_FILTER_NONE);
	png_set_IHDR(pp, ip, (png_uint_32)w, (png_uint_32)h, 8, PNG_COLOR_TYPE_RGB,
	             PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_BASE, PNG_FILTER_TYPE_BASE);
	png_write_info(pp, ip);
	for (int y = 0; y < h && !k->over; y++) {
		const uint32_t *px =
		    (const uint32_t *)(const void *)(data + (size_t)y * (size_t)stride);
		for (int x = 0; x < w; x++) {
			row[3 * x] = (unsigned char)(px[x] >> 16);
			row[3 * x + 1] = (unsigned char)(px[x] >> 8);
			row[3 * x + 2] = (unsigned char)px[x];
		}
		png_write_row(pp, row);
	}
	if (!k->over)
		png_write_end(pp, ip);
	png_destroy_write_struct(&pp, &ip);
	return k->over ? -1 : 0;
}

/* Draws the picture of g with mk and encodes it (ctpicture_png's contract). */
static int render(const struct ctgame *g, const struct ctpicture_marks *mk, unsigned char **png,
                  size_t *len)
{
	struct sink k = { NULL, 0, 0, 0 };
	cairo_surface_t *surface;
	cairo_t *cr = NULL;
	unsigned char *row = NULL;
	struct frame f;
	int result = -1;

	if (ctcairo_load())
		return -1;
	ctpic_frame_of(g, mk, &f);
	surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, f.pw, f.ph);
	if (cairo_surface_status(surface) != CAIRO_STATUS_SUCCESS)
		goto out;
	cr = cairo_create(surface);
	if (cairo_status(cr) != CAIRO_STATUS_SUCCESS)
		goto out;
	ctpic_draw(cr, &f, g, mk);
	if (cairo_status(cr) != CAIRO_STATUS_SUCCESS)
		goto out;
	cairo_surface_flush(surface);
	row = malloc(3 * (size_t)f.pw);
	if (!row || encode(surface, row, &k) < 0)
		goto out;
	*png = k.buf;
	*len = k.len;
	k.buf = NULL;
	result = 0;
out:
	free(row);
	free(k.buf);
	cairo_destroy(cr);
	cairo_surface_destroy(surface);
	return result;
}

/* ---- the cache of pictures ---- */

/* Everything the PNG is drawn from, in a canonical form: the part of the
 * state the picture shows (every other field zero) and the marks' values
 * (arrays copied, counts clamped, names cut one byte past what the legend
 * shows, the language as its legend index). A miss draws from the key
 * itself (key_marks), so two equal keys give the same bytes whatever else
 * differs between the states they were taken from. */
struct key {
	struct ctgame g;
	int32_t tile, preview, target, full, lang, n_options, n_reach;
	char names[CTGAME_MAX][SHOWN_NAME + 2];
	struct ctmap_option options[CTMAP_OPTIONS_MAX];
	int16_t reach[CTMAP_SQUARES];
};

#define CACHE_SLOTS 8
#define CACHE_BYTES (2 << 20) /* PNG bytes kept at most, all slots together */

struct slot {
	struct key *key; /* NULL: empty */
	unsigned char *png;
	size_t len;
	uint64_t used; /* the cache's clock at the last hit or store */
};

static struct {
	pthread_mutex_t lock;
	struct slot slot[CACHE_SLOTS];
	size_t bytes;
	uint64_t clock;
	struct ctpicture_cache_stats stats;
} cache = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* Sets *k to the key of g and mk (mk may be NULL). */
static void key_of(const struct ctgame *g, const struct ctpicture_marks *mk, struct key *k)
{
	int n = g->n < CTGAME_MAX ? g->n : CTGAME_MAX;

	memset(k, 0, sizeof(*k));
	k->g.map = g->map;
	memcpy(k->g.square, g->square, sizeof(g->square));
	k->g.n = g->n;
	k->g.seat = g->seat;
	k->g.end = g->end;
	for (int s = 0; s < n; s++) {
		k->g.p[s].sq = g->p[s].sq;
		k->g.p[s].sites = g->p[s].sites;
	}
	k->tile = mk ? mk->tile : -1;
	k->preview = mk ? mk->preview : -1;
	k->target = mk ? mk->target : -1;
	k->full = mk ? mk->full != 0 : 0;
	k->lang = ctpic_lang_index(mk ? mk->lang : NULL);
	k->n_options = ctpic_n_options(mk);
	if (k->n_options)
		memcpy(k->options, mk->options, (size_t)k->n_options * sizeof(k->options[0]));
	if (mk && mk->reach && mk->n_reach > 0) {
		k->n_reach = mk->n_reach < CTMAP_SQUARES ? mk->n_reach : CTMAP_SQUARES;
		memcpy(k->reach, mk->reach, (size_t)k->n_reach * sizeof(k->reach[0]));
	}
	for (int s = 0; mk && s < CTGAME_MAX; s++)
		if (mk->names[s])
			snprintf(k->names[s], sizeof(k->names[s]), "%s", mk->names[s]);
}

/* The marks a key stands for, pointing into k. */
static void key_marks(const struct key *k, struct ctpicture_marks *mk)
{
	ctpicture_marks_init(mk);
	mk->tile = k->tile;
	mk->preview = k->preview;
	mk->target = k->target;
	mk->full = k->full;
	mk->lang = ctpic_lang_code(k->lang);
	mk->options = k->options;
	mk->n_options = k->n_options;
	mk->reach = k->reach;
	mk->n_reach = k->n_reach;
	for (int s = 0; s < CTGAME_MAX; s++)
		mk->names[s] = k->names[s];
}

/* A malloc'd copy of the cached PNG of k into *png, *len (0), or -1 when
 * there is none (or no memory for the copy). Called with the lock held. */
static int cache_get(const struct key *k, unsigned char **png, size_t *len)
{
	for (int i = 0; i < CACHE_SLOTS; i++) {
		struct slot *sl = &cache.slot[i];
		if (!sl->key || memcmp(sl->key, k, sizeof(*k)) != 0)
			continue;
		if (!(*png = malloc(sl->len)))
			return -1;
		memcpy(*png, sl->png, sl->len);
		*len = sl->len;
		sl->used = ++cache.clock;
		return 0;
	}
	return -1;
}

static void slot_free(struct slot *sl)
{
	cache.bytes -= sl->key ? sl->len : 0;
	free(sl->key);
	free(sl->png);
	memset(sl, 0, sizeof(*sl));
}

/* Keeps copies of k and png[0..len-1], in place of the least recently used
 * slots as the bounds require. Nothing is kept when memory is short or
 * the PNG alone passes a quarter of CACHE_BYTES. Called with the lock held. */
static void cache_put(const struct key *k, const unsigned char *png, size_t len)
{
	struct slot *sl = NULL;
	struct key *kc;
	unsigned char *pc;

	if (len > CACHE_BYTES / 4)
		return;
	for (;;) {
		struct slot *lru = NULL;
		int empty = 0;
		for (int i = 0; i < CACHE_SLOTS; i++) {
			if (!cache.slot[i].key) {
				empty = 1;
				sl = sl ? sl : &cache.slot[i];
			} else if (!lru || cache.slot[i].used < lru->used)
				lru = &cache.slot[i];
		}
		if (empty && cache.bytes + len <= CACHE_BYTES)
			break;
		slot_free(lru);
		cache.stats.evictions++;
		sl = NULL;
	}
	kc = malloc(sizeof(*kc));
	pc = malloc(len);
	if (!kc || !pc) {
		free(kc);
		free(pc);
		return;
	}
	memcpy(kc, k, sizeof(*k));
	memcpy(pc, png, len);
	sl->key = kc;
	sl->png = pc;
	sl->len = len;
	sl->used = ++cache.clock;
	cache.bytes += len;
}

int ctpicture_png(const struct ctgame *g, const struct ctpicture_marks *marks, unsigned char **png,
                  size_t *len)
{
	struct ctpicture_marks mk;
	struct key *k = malloc(sizeof(*k));
	int rc;

	*png = NULL;
	*len = 0;
	if (!k)
		return -1;
	key_of(g, marks, k);
	pthread_mutex_lock(&cache.lock);
	rc = cache_get(k, png, len);
	if (rc == 0)
		cache.stats.hits++;
	pthread_mutex_unlock(&cache.lock);
	if (rc == 0) {
		free(k);
		return 0;
	}
	key_marks(k, &mk);
	rc = render(&k->g, &mk, png, len);
	pthread_mutex_lock(&cache.lock);
	cache.stats.renders++;
	if (rc == 0)
		cache_put(k, *png, *len);
	pthread_mutex_unlock(&cache.lock);
	free(k);
	if (rc < 0) {
		*png = NULL;
		*len = 0;
	}
	return rc;
}

void ctpicture_cache_stats(struct ctpicture_cache_stats *out)
{
	pthread_mutex_lock(&cache.lock);
	*out = cache.stats;
	out->entries = 0;
	for (int i = 0; i < CACHE_SLOTS; i++)
		out->entries += cache.slot[i].key != NULL;
	out->bytes = cache.bytes;
	pthread_mutex_unlock(&cache.lock);
}

void ctpicture_cache_clear(void)
{
	pthread_mutex_lock(&cache.lock);
	for (int i = 0; i < CACHE_SLOTS; i++)
		slot_free(&cache.slot[i]);
	cache.bytes = 0;
	pthread_mutex_unlock(&cache.lock);
}

int ctpicture_png_file(const struct ctgame *g, const struct ctpicture_marks *marks,
                       const char *path)
{
	unsigned char *png;
	size_t len;
	FILE *fp;
	int saved;

	if (ctpicture_png(g, marks, &png, &len) < 0) {
		errno = EIO;
		return -1;
	}
	fp = fopen(path, "wb");
	if (!fp) {
		saved = errno;
		free(png);
		errno = saved;
		return -1;
	}
	if (fwrite(png, 1, len, fp) != len) {
		saved = errno ? errno : EIO;
		fclose(fp);
		goto fail;
	}
	free(png);
	png = NULL;
	if (fclose(fp) != 0) {
		saved = errno;
		goto fail;
	}
	return 0;
fail:
	free(png);
	unlink(path);
	errno = saved;
	return -1;
}

void ctpicture_cleanup(void)
{
	ctpicture_cache_clear();
	if (ctcairo_loaded()) {
		cairo_debug_reset_static_data();
		ctcairo_fn.fc_fini();
	}
}
