/* The HTTP API client: one request's HTTP, its attempts and its response. */
#include "rlyeh/rest.h"

#include <curl/curl.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "rest_int.h"

static size_t json_ws(const char *s, size_t n, size_t i)
{
	while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
		i++;
	return i;
}

/* s[i] is '"': returns the index after the closing quote, n when there is
 * none. */
static size_t json_string_end(const char *s, size_t n, size_t i)
{
	for (i++; i < n; i++) {
		if (s[i] == '\\')
			i++;
		else if (s[i] == '"')
			return i + 1;
	}
	return n;
}

/* Returns the index after the JSON value starting at s[i] (objects and
 * arrays with everything in them), n when it does not end. */
static size_t json_value_end(const char *s, size_t n, size_t i)
{
	int depth = 0;

	if (i >= n)
		return n;
	if (s[i] == '"')
		return json_string_end(s, n, i);
	if (s[i] != '{' && s[i] != '[') {
		while (i < n && s[i] != ',' && s[i] != '}' && s[i] != ']' && s[i] != ' ' &&
		       s[i] != '\t' && s[i] != '\r' && s[i] != '\n')
			i++;
		return i;
	}
	while (i < n) {
		if (s[i] == '"') {
			i = json_string_end(s, n, i);
			continue;
		}
		if (s[i] == '{' || s[i] == '[') {
			depth++;
		} else if (s[i] == '}' || s[i] == ']') {
			if (--depth == 0)
				return i + 1;
		}
		i++;
	}
	return n;
}

/* Parses a non-negative decimal number ("64.57", "1", "2e-1") filling
 * exactly [s, s+n), independently of the locale. Returns 0, or -1 when it
 * is not one (*out unchanged). */
static int parse_seconds(const char *s, size_t n, double *out)
{
	double v = 0, scale = 0.1;
	size_t i = 0;
	int digits = 0;

	for (; i < n && s[i] >= '0' && s[i] <= '9'; i++, digits++)
		v = v * 10 + (s[i] - '0');
	if (i < n && s[i] == '.')
		for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++, digits++, scale /= 10)
			v += (s[i] - '0') * scale;
	if (!digits)
		return -1;
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		int neg = 0, e = 0, edigits = 0;

		i++;
		if (i < n && (s[i] == '+' || s[i] == '-'))
			neg = s[i++] == '-';
		for (; i < n && s[i] >= '0' && s[i] <= '9'; i++, edigits++)
			if (e < 400)
				e = e * 10 + (s[i] - '0');
		if (!edigits)
			return -1;
		for (; e > 0; e--)
			v = neg ? v / 10 : v * 10;
	}
	if (i != n)
		return -1;
	*out = v;
	return 0;
}

/* Parses a non-negative decimal integer filling exactly [s, s+n). Returns 0,
 * or -1 (*out unchanged). */
static int parse_count(const char *s, size_t n, long *out)
{
	long v = 0;

	if (n == 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9' || v > (0x7fffffffL - 9) / 10)
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	*out = v;
	return 0;
}

/* Reads "retry_after" (seconds) and "global" from the top level of a 429
 * body ({"message", "retry_after", "global"}). Members that are missing or
 * malformed leave the outputs as they were. */
void rest_http_parse_429_body(const char *s, size_t n, int *has_retry, double *retry, int *global)
{
	size_t i = json_ws(s, n, 0);

	if (i >= n || s[i] != '{')
		return;
	i = json_ws(s, n, i + 1);
	while (i < n && s[i] == '"') {
		size_t key = i + 1, key_end = json_string_end(s, n, i), klen, vend;

		if (key_end >= n)
			return;
		klen = key_end - 1 - key;
		i = json_ws(s, n, key_end);
		if (i >= n || s[i] != ':')
			return;
		i = json_ws(s, n, i + 1);
		vend = json_value_end(s, n, i);
		if (vend >= n)
			return;
		if (klen == 11 && memcmp(s + key, "retry_after", 11) == 0) {
			if (parse_seconds(s + i, vend - i, retry) == 0)
				*has_retry = 1;
		} else if (klen == 6 && memcmp(s + key, "global", 6) == 0) {
			if (vend - i == 4 && memcmp(s + i, "true", 4) == 0)
				*global = 1;
		}
		i = json_ws(s, n, vend);
		if (i >= n || s[i] != ',')
			return;
		i = json_ws(s, n, i + 1);
	}
}

/* CURLOPT_WRITEFUNCTION: keeps the body, NUL-terminated, up to
 * REST_MAX_RESPONSE bytes; past that, marks the job and fails the transfer. */
static size_t on_body(char *data, size_t size, size_t nmemb, void *ud)
{
	struct job *j = ud;
	size_t n = size * nmemb;

	if (n > REST_MAX_RESPONSE - j->resp_len) {
		j->too_big = 1;
		return 0;
	}
	if (j->resp_len + n + 1 > j->resp_cap) {
		size_t cap = j->resp_cap ? j->resp_cap : 4096;
		char *p;

		while (cap < j->resp_len + n + 1)
			cap *= 2;
		if (cap > REST_MAX_RESPONSE + 1)
			cap = REST_MAX_RESPONSE + 1;
		p = realloc(j->resp, cap);
		if (!p)
			return 0;
		j->resp = p;
		j->resp_cap = cap;
	}
	memcpy(j->resp + j->resp_len, data, n);
	j->resp_len += n;
	j->resp[j->resp_len] = '\0';
	return n;
}

static int header_is(const char *line, size_t name_len, const char *name)
{
	return strlen(name) == name_len && strncasecmp(line, name, name_len) == 0;
}

/* CURLOPT_HEADERFUNCTION: records the rate-limit headers of the last
 * response (a status line starts a new response). */
static size_t on_header(char *data, size_t size, size_t nitems, void *ud)
{
	struct job *j = ud;
	struct reply_headers *h = &j->hdr;
	size_t n = size * nitems, name_len, v, end;
	const char *colon;

	if (n >= 5 && memcmp(data, "HTTP/", 5) == 0) {
		memset(h, 0, sizeof *h);
		return n;
	}
	colon = memchr(data, ':', n);
	if (!colon)
		return n;
	name_len = (size_t)(colon - data);
	v = name_len + 1;
	end = n;
	while (v < end && (data[v] == ' ' || data[v] == '\t'))
		v++;
	while (end > v && (data[end - 1] == '\r' || data[end - 1] == '\n' || data[end - 1] == ' ' ||
	                   data[end - 1] == '\t'))
		end--;
	if (header_is(data, name_len, "x-ratelimit-bucket")) {
		if (end - v <= BUCKET_MAX_LEN) {
			memcpy(h->bucket, data + v, end - v);
			h->bucket[end - v] = '\0';
		}
	} else if (header_is(data, name_len, "x-ratelimit-remaining")) {
		h->has_remaining = parse_count(data + v, end - v, &h->remaining) == 0;
	} else if (header_is(data, name_len, "x-ratelimit-reset-after")) {
		h->has_reset_after = parse_seconds(data + v, end - v, &h->reset_after) == 0;
	} else if (header_is(data, name_len, "retry-after")) {
		h->has_retry_after = parse_seconds(data + v, end - v, &h->retry_after) == 0;
	} else if (header_is(data, name_len, "x-ratelimit-global")) {
		if (end - v == 4 && strncasecmp(data + v, "true", 4) == 0)
			h->global = 1;
	} else if (header_is(data, name_len, "x-ratelimit-scope")) {
		if (end - v == 6 && strncasecmp(data + v, "global", 6) == 0)
			h->global = 1;
	}
	return n;
}

/* Releases what j's attempts hold: the easy handle (reset into the pool
 * when it has room), the header list and the form. The response body stays
 * with the job. The handle must not be in the multi handle. */
static void handles_free(struct rest *r, struct job *j)
{
	if (j->easy && r->npool < EASY_POOL) {
		curl_easy_reset(j->easy);
		r->pool[r->npool++] = j->easy;
	} else if (j->easy) {
		curl_easy_cleanup(j->easy);
	}
	j->easy = NULL;
	curl_slist_free_all(j->headers);
	j->headers = NULL;
	curl_mime_free(j->mime);
	j->mime = NULL;
}

/* Ends j's attempt. A form keeps its handle and body for the next attempt,
 * so that a retry sends the same bytes; other requests give them back. */
void rest_http_attempt_release(struct rest *r, struct job *j)
{
	if (!j->mime)
		handles_free(r, j);
}

/* Forgets rt when no request uses it, and its limit when nothing else
 * does; both stay while the limit holds requests back (the sweep forgets
 * them later). */
static void route_forget(struct rest *r, struct route *rt, double now)
{
	struct limit *l = rt->limit;

	if (rt->refs > 0 || rest_limits_limit_holds(l, now))
		return;
	rest_limits_table_remove(&r->routes, &rt->node);
	free(rt->node.key);
	free(rt->major);
	free(rt);
	if (--l->refs == 0 && l->inflight == 0) {
		rest_limits_table_remove(&r->limits, &l->node);
		free(l->node.key);
		free(l);
	}
}

/* Frees j and everything it owns, and lets go of its route. */
void rest_http_job_free(struct rest *r, struct job *j, double now)
{
	if (!j)
		return;
	handles_free(r, j);
	if (j->route) {
		j->route->refs--;
		route_forget(r, j->route, now);
	}
	free(j->path);
	free(j->body);
	free(j->content_type);
	for (int i = 0; j->files && i < j->nfiles; i++) {
		free(j->files[i].name);
		free(j->files[i].filename);
		free(j->files[i].content_type);
		free(j->files[i].data);
	}
	free(j->files);
	free(j->route_key);
	free(j->major);
	free(j->resp);
	free(j->done);
	free(j);
}

/* Frees j without answering it (the worker is stopping). */
void rest_http_drop(struct rest *r, struct job *j, double now)
{
	pthread_mutex_lock(&r->lock);
	r->pending--;
	pthread_mutex_unlock(&r->lock);
	rest_http_job_free(r, j, now);
}

/* Answers j: its response (the body kept so far, `status`, and the error
 * text built from fmt, never containing the token) goes to the responses
 * queue, `wake` is called when that queue was empty, and j is freed. */
void rest_http_deliver(struct rest *r, struct job *j, long status, const char *fmt, ...)
{
	struct done *d = j->done;
	va_list ap;
	int wake;

	j->done = NULL;
	d->next = NULL;
	d->resp.tag = j->tag;
	d->resp.status = status;
	d->resp.attempts = j->attempts;
	d->resp.body = j->resp;
	d->resp.len = j->resp ? j->resp_len : 0;
	j->resp = NULL;
	va_start(ap, fmt);
	vsnprintf(d->resp.error, sizeof d->resp.error, fmt, ap);
	va_end(ap);
	if (r->token[0] && strstr(d->resp.error, r->token))
		snprintf(d->resp.error, sizeof d->resp.error, "request failed");

	pthread_mutex_lock(&r->lock);
	/* A non-empty queue has a wake-up on its way, which takes this one too. */
	wake = !r->done_head;
	if (r->done_tail)
		r->done_tail->next = d;
	else
		r->done_head = d;
	r->done_tail = d;
	r->pending--;
	pthread_mutex_unlock(&r->lock);
	if (wake && r->wake)
		r->wake(r->wake_ctx);
	rest_http_job_free(r, j, rest_mono_now());
}

/* A header list: the authorization, the content type ("Content-Type:"
 * with no value keeps libcurl from adding its form type) and "Expect:"
 * (no waiting for a 100 Continue). A form's list (`form`) has no content
 * type: libcurl sends its own, which names the boundary. NULL when memory is
 * short. */
struct curl_slist *rest_http_header_list(const struct rest *r, const char *content_type, int form)
{
	struct curl_slist *h = NULL, *t;
	char *ctype = content_type ? rest_join2("Content-Type: ", content_type) : NULL;
	const char *lines[] = { r->auth, content_type ? ctype : "Content-Type:", "Expect:" };

	if (content_type && !ctype)
		return NULL;
	for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
		if (form && i == 1)
			continue;
		t = curl_slist_append(h, lines[i]);
		if (!t) {
			curl_slist_free_all(h);
			h = NULL;
			break;
		}
		h = t;
	}
	free(ctype);
	return h;
}

/* CURLOPT_READFUNCTION of a file part: reads the job's copy. */
static size_t part_read(char *buf, size_t size, size_t nitems, void *arg)
{
	struct job_file *f = arg;
	size_t n = size * nitems, left = f->len - f->pos;

	if (n > left)
		n = left;
	memcpy(buf, f->data + f->pos, n);
	f->pos += n;
	return n;
}

/* CURLOPT_SEEKFUNCTION of a file part: libcurl rewinds the parts before each
 * attempt (and when it sends a request again on a new connection). */
static int part_seek(void *arg, curl_off_t offset, int origin)
{
	struct job_file *f = arg;
	curl_off_t base;

	if (origin == SEEK_SET)
		base = 0;
	else if (origin == SEEK_CUR)
		base = (curl_off_t)f->pos;
	else if (origin == SEEK_END)
		base = (curl_off_t)f->len;
	else
		return CURL_SEEKFUNC_FAIL;
	if (offset < -base || offset > (curl_off_t)f->len - base)
		return CURL_SEEKFUNC_FAIL;
	f->pos = (size_t)(base + offset);
	return CURL_SEEKFUNC_OK;
}

/* Builds j's form for the easy handle e: "payload_json" (the body, when
 * there is one), then the files. Returns NULL when memory is short. */
static curl_mime *form_build(struct job *j, CURL *e)
{
	curl_mime *m = curl_mime_init(e);
	curl_mimepart *p;
	int bad = !m;

	if (!bad && j->body) {
		p = curl_mime_addpart(m);
		bad = !p || curl_mime_name(p, "payload_json") != CURLE_OK ||
		      curl_mime_type(p, "application/json") != CURLE_OK ||
		      curl_mime_data(p, j->body, j->body_len) != CURLE_OK;
	}
	for (int i = 0; !bad && i < j->nfiles; i++) {
		struct job_file *f = &j->files[i];

		f->pos = 0;
		p = curl_mime_addpart(m);
		bad = !p || curl_mime_name(p, f->name) != CURLE_OK ||
		      curl_mime_filename(p, f->filename) != CURLE_OK ||
		      curl_mime_type(p, f->content_type) != CURLE_OK ||
		      curl_mime_data_cb(p, (curl_off_t)f->len, part_read, part_seek, NULL, f) !=
		          CURLE_OK;
	}
	if (bad) {
		curl_mime_free(m);
		return NULL;
	}
	return m;
}

/* CURLOPT_PREREQFUNCTION: the request of job ud goes out now, on a
 * connection made or reused. */
static int on_prereq(void *ud, char *primary_ip, char *local_ip, int primary_port, int local_port)
{
	struct job *j = ud;

	(void)primary_ip;
	(void)local_ip;
	(void)primary_port;
	(void)local_port;
	rest_worker_sent(j->rest, j);
	return CURL_PREREQFUNC_OK;
}

/* Readies j for the attempt that e is about to make. */
static void attempt_begin(struct job *j, CURL *e)
{
	free(j->resp);
	j->resp = NULL;
	j->resp_len = j->resp_cap = 0;
	j->too_big = 0;
	memset(&j->hdr, 0, sizeof j->hdr);
	j->easy = e;
}

/* Starts one attempt of j: an easy handle (from the pool, or new; a form's
 * retry reuses its own) added to the multi handle. Returns 0, or -1 with
 * the attempt's resources released (a form's kept ones stay with j). */
int rest_http_start(struct rest *r, struct job *j)
{
	CURL *e;
	struct curl_slist *h = NULL, *own = NULL;
	curl_mime *mime = NULL;
	char *url = NULL;
	int bad = 0;

	if (j->mime) {
		/* the options and the form are still set: the same bytes go again */
		if (curl_multi_add_handle(r->multi, j->easy) != CURLM_OK)
			return -1;
		attempt_begin(j, j->easy);
		return 0;
	}
	e = r->npool ? r->pool[--r->npool] : curl_easy_init();
	if (!e)
		return -1;
	url = rest_join2(r->base_url, j->path);
	if (j->files)
		h = r->hdr_form;
	else if (!j->content_type)
		h = r->hdr_none;
	else if (strcmp(j->content_type, "application/json") == 0)
		h = r->hdr_json;
	else
		h = own = rest_http_header_list(r, j->content_type, 0);
	if (j->files)
		mime = form_build(j, e);
	if (!url || !h || (j->files && !mime))
		goto fail;

	bad |= curl_easy_setopt(e, CURLOPT_URL, url) != CURLE_OK;
	bad |= curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https") != CURLE_OK;
	bad |= curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L) != CURLE_OK;
	bad |= curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, r->timeout_ms) != CURLE_OK;
	bad |= curl_easy_setopt(e, CURLOPT_USERAGENT, r->user_agent) != CURLE_OK;
	bad |= curl_easy_setopt(e, CURLOPT_HTTPHEADER, h) != CURLE_OK;
	bad |= curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body) != CURLE_OK;
	bad |= curl_easy_setopt(e, CURLOPT_WRITEDATA, (void *)j) != CURLE_OK;
	bad |= curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header) != CURLE_OK;
	bad |= curl_easy_setopt(e, CURLOPT_PREREQFUNCTION, on_prereq) != CURLE_OK;
	bad |= curl_easy_setopt(e, CURLOPT_PREREQDATA, (void *)j) != CURLE_OK;
	bad |= curl_easy_setopt(e, CURLOPT_HEADERDATA, (void *)j) != CURLE_OK;
	bad |= curl_easy_setopt(e, CURLOPT_PRIVATE, (void *)j) != CURLE_OK;
	if (j->method == REST_GET) {
		bad |= curl_easy_setopt(e, CURLOPT_HTTPGET, 1L) != CURLE_OK;
	} else if (mime) {
		if (j->method != REST_POST)
			bad |= curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST,
			                        rest_method_names[j->method]) != CURLE_OK;
		bad |= curl_easy_setopt(e, CURLOPT_MIMEPOST, mime) != CURLE_OK;
	} else {
		if (j->method != REST_POST)
			bad |= curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST,
			                        rest_method_names[j->method]) != CURLE_OK;
		/* POST, PUT and PATCH always carry a Content-Length, 0 when empty */
		if (j->body || j->method != REST_DELETE) {
			bad |= curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE,
			                        (curl_off_t)j->body_len) != CURLE_OK;
			bad |= curl_easy_setopt(e, CURLOPT_POSTFIELDS, j->body ? j->body : "") !=
			       CURLE_OK;
		}
	}
	if (bad || curl_multi_add_handle(r->multi, e) != CURLM_OK)
		goto fail;
	/* libcurl copies the URL; the header list and the form must outlive the
	 * transfer */
	free(url);
	attempt_begin(j, e);
	j->headers = own;
	j->mime = mime;
	return 0;
fail:
	curl_easy_cleanup(e);
	curl_slist_free_all(own);
	curl_mime_free(mime);
	free(url);
	return -1;
}
