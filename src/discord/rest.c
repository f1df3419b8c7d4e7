/* rest: the chat platform's HTTP API (include/rlyeh/rest.h).
 *
 * Threads. rest_submit, rest_poll, rest_pending and rest_stats may run on any
 * thread and touch only the fields under `lock`. The worker thread owns the
 * rest: the libcurl multi handle, the requests it has taken, the rate-limit
 * tables and the global window.
 *
 * Rate limits. Every request has a route: its method and path with the major
 * parameters kept (the channel or guild id, a webhook's id and token, an
 * interaction's id and token) and every other all-digit segment replaced by
 * ":id". A route starts with a limit of its own; once a response names its
 * X-RateLimit-Bucket, the route moves to the limit "bucket + major
 * parameter", which every route of that bucket and resource shares. A limit
 * lets one request of its own be in flight at a time, so the requests of a
 * route reach the server in the order they were submitted; it holds requests
 * back while X-RateLimit-Remaining is 0 (until Reset-After has elapsed) and
 * after a 429 (until retry_after has elapsed). Requests that are not exempt
 * also wait for the global window (global_per_second in any second) and for a
 * global 429.
 *
 * Memory. A route that no request uses is forgotten at once unless its limit
 * holds requests back (then the sweep forgets it once the limit has expired):
 * a bot with many channels keeps no record of the idle ones. The route's next
 * request starts on a limit of its own again and learns its bucket anew.
 *
 * Files. A request with files goes as a libcurl MIME form ("payload_json",
 * then the files). The form is built at the first attempt and kept, with its
 * easy handle, until the request is answered: a retry re-adds the same
 * handle, so it sends the same bytes, boundary included. The file parts read
 * the job's own copies through callbacks (no second copy). */
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

const char *const rest_method_names[] = { "GET", "POST", "PUT", "PATCH", "DELETE" };

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static CURLcode curl_init_result = CURLE_FAILED_INIT;

static void curl_init_once(void)
{
	curl_init_result = curl_global_init(CURL_GLOBAL_DEFAULT);
}

/* Wakes the worker from epoll_wait (any thread). */
static void wake_worker(struct rest *r)
{
	uint64_t one = 1;

	/* EAGAIN: the counter is full, a wake-up is pending anyway */
	(void)!write(r->evfd, &one, sizeof one);
}

double rest_mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double rest_max_d(double a, double b)
{
	return a > b ? a : b;
}

/* splitmix64: only the backoff jitter uses it. */
double rest_prng_unit(struct rest *r)
{
	uint64_t z = (r->prng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	return (double)(z >> 11) / 9007199254740992.0;
}

static char *dup_mem(const char *s, size_t n)
{
	char *d = malloc(n + 1);

	if (d) {
		if (n)
			memcpy(d, s, n);
		d[n] = '\0';
	}
	return d;
}

char *rest_dup_str(const char *s)
{
	return dup_mem(s, strlen(s));
}

/* Concatenates a and b into a new string; NULL when out of memory. */
char *rest_join2(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	char *d = malloc(la + lb + 1);

	if (d) {
		memcpy(d, a, la);
		memcpy(d + la, b, lb + 1);
	}
	return d;
}

/* Whether s has no control characters (it goes into a header line or a URL). */
static int printable(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 0;
	return 1;
}

/* Whether s has 1 to max characters, each a letter, a digit or one of
 * `extra`. */
static int made_of(const char *s, size_t max, const char *extra)
{
	size_t n = 0;

	for (; s[n]; n++) {
		char c = s[n];

		if (n == max || !((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		                  (c >= '0' && c <= '9') || strchr(extra, c)))
			return 0;
	}
	return n > 0;
}

/* Whether the files of req keep the rules of struct rest_file and, with the
 * body, the size caps. */
static int files_ok(const struct rest_request *req)
{
	size_t total = req->body_len;

	if (req->nfiles == 0)
		return 1;
	if (req->nfiles < 0 || req->nfiles > REST_MAX_FILES || !req->files ||
	    (req->method != REST_POST && req->method != REST_PUT && req->method != REST_PATCH) ||
	    (req->content_type && strcmp(req->content_type, "application/json") != 0))
		return 0;
	for (int i = 0; i < req->nfiles; i++) {
		const struct rest_file *f = &req->files[i];

		if (!f->name || !made_of(f->name, FIELD_MAX_LEN, "_[]") ||
		    strcmp(f->name, "payload_json") == 0 || !f->filename ||
		    !made_of(f->filename, REST_FILENAME_MAX, "._-") || f->filename[0] == '.' ||
		    !f->data || f->len == 0 || f->len > REST_MAX_REQUEST - total)
			return 0;
		if (f->content_type &&
		    (f->content_type[0] == '\0' || strlen(f->content_type) > CTYPE_MAX_LEN ||
		     !printable(f->content_type)))
			return 0;
		for (int k = 0; k < i; k++)
			if (strcmp(req->files[k].name, f->name) == 0)
				return 0;
		total += f->len;
	}
	return 1;
}

void rest_jlist_append(struct jlist *l, struct job *j)
{
	j->next = NULL;
	j->prev = l->tail;
	if (l->tail)
		l->tail->next = j;
	else
		l->head = j;
	l->tail = j;
}

void rest_jlist_prepend(struct jlist *l, struct job *j)
{
	j->prev = NULL;
	j->next = l->head;
	if (l->head)
		l->head->prev = j;
	else
		l->tail = j;
	l->head = j;
}

void rest_jlist_remove(struct jlist *l, struct job *j)
{
	if (j->prev)
		j->prev->next = j->next;
	else
		l->head = j->next;
	if (j->next)
		j->next->prev = j->prev;
	else
		l->tail = j->prev;
	j->prev = j->next = NULL;
}

/* Moves every job of src to the end of dst; src is left empty. */
void rest_jlist_splice(struct jlist *dst, struct jlist *src)
{
	if (!src->head)
		return;
	if (dst->tail) {
		dst->tail->next = src->head;
		src->head->prev = dst->tail;
	} else {
		dst->head = src->head;
	}
	dst->tail = src->tail;
	src->head = src->tail = NULL;
}

/* Frees r and everything it holds; the worker must not be running. */
static void rest_free(struct rest *r)
{
	struct job *j;

	while ((j = r->incoming.head)) {
		rest_jlist_remove(&r->incoming, j);
		rest_http_job_free(r, j, 0);
	}
	while (r->done_head) {
		struct done *d = r->done_head;

		r->done_head = d->next;
		free(d->resp.body);
		free(d);
	}
	rest_limits_table_free(&r->routes, rest_limits_route_extra_free);
	rest_limits_table_free(&r->limits, NULL);
	if (r->multi)
		curl_multi_cleanup(r->multi);
	if (r->epfd >= 0)
		close(r->epfd);
	if (r->evfd >= 0)
		close(r->evfd);
	while (r->npool > 0)
		curl_easy_cleanup(r->pool[--r->npool]);
	curl_slist_free_all(r->hdr_none);
	curl_slist_free_all(r->hdr_json);
	curl_slist_free_all(r->hdr_form);
	pthread_mutex_destroy(&r->lock);
	free(r->sent);
	free(r->base_url);
	free(r->token);
	free(r->user_agent);
	free(r->auth);
	free(r);
}

struct rest *rest_start(const struct rest_config *cfg, void (*wake)(void *), void *wake_ctx)
{
	struct rest *r;
	struct timespec ts;
	sigset_t all, old;
	int rc;

	if (!cfg || !cfg->base_url || !cfg->token || !cfg->user_agent || !printable(cfg->token) ||
	    !printable(cfg->user_agent) || !printable(cfg->base_url))
		return NULL;
	if (pthread_once(&curl_once, curl_init_once) != 0 || curl_init_result != CURLE_OK)
		return NULL;
	r = calloc(1, sizeof *r);
	if (!r)
		return NULL;
	if (pthread_mutex_init(&r->lock, NULL) != 0) {
		free(r);
		return NULL;
	}
	r->wake = wake;
	r->wake_ctx = wake_ctx;
	r->epfd = epoll_create1(EPOLL_CLOEXEC);
	r->evfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	r->curl_due = -1.0;
	r->timeout_ms = cfg->timeout_ms > 0 ? cfg->timeout_ms : DEFAULT_TIMEOUT_MS;
	/* 0 takes the default, a negative count means no retries */
	r->max_retries = cfg->max_retries == 0 ? DEFAULT_RETRIES : cfg->max_retries;
	if (r->max_retries < 0)
		r->max_retries = 0;
	r->global_per_second = cfg->global_per_second > 0 ? cfg->global_per_second : DEFAULT_GLOBAL;
	if (r->global_per_second > GLOBAL_MAX)
		r->global_per_second = GLOBAL_MAX;
	r->share = r->window = r->global_per_second;
	r->hold_until = -1e9;
	r->base_url = rest_dup_str(cfg->base_url);
	r->token = rest_dup_str(cfg->token);
	r->user_agent = rest_dup_str(cfg->user_agent);
	r->auth = rest_join2("Authorization: Bot ", cfg->token);
	r->sent = malloc((size_t)r->global_per_second * sizeof *r->sent);
	r->multi = curl_multi_init();
	if (r->auth) {
		r->hdr_none = rest_http_header_list(r, NULL, 0);
		r->hdr_json = rest_http_header_list(r, "application/json", 0);
		r->hdr_form = rest_http_header_list(r, NULL, 1);
	}
	if (r->epfd >= 0 && r->evfd >= 0) {
		struct epoll_event ev = { .events = EPOLLIN, .data.fd = r->evfd };
		if (epoll_ctl(r->epfd, EPOLL_CTL_ADD, r->evfd, &ev) != 0) {
			close(r->evfd);
			r->evfd = -1;
		}
	}
	if (!r->base_url || !r->token || !r->user_agent || !r->auth || !r->sent || !r->multi ||
	    !r->hdr_none || !r->hdr_json || !r->hdr_form || r->epfd < 0 || r->evfd < 0 ||
	    curl_multi_setopt(r->multi, CURLMOPT_MAXCONNECTS, (long)MAX_CONNECTS) != CURLM_OK ||
	    curl_multi_setopt(r->multi, CURLMOPT_SOCKETFUNCTION, rest_worker_on_socket) !=
	        CURLM_OK ||
	    curl_multi_setopt(r->multi, CURLMOPT_SOCKETDATA, (void *)r) != CURLM_OK ||
	    curl_multi_setopt(r->multi, CURLMOPT_TIMERFUNCTION, rest_worker_on_timer) != CURLM_OK ||
	    curl_multi_setopt(r->multi, CURLMOPT_TIMERDATA, (void *)r) != CURLM_OK) {
		rest_free(r);
		return NULL;
	}
	for (int i = 0; i < r->global_per_second; i++)
		r->sent[i] = -1e9;
	r->global_until = -1e9;
	clock_gettime(CLOCK_REALTIME, &ts);
	r->prng = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
	r->next_sweep = rest_mono_now() + SWEEP_EVERY;

	/* signals go to the caller's threads, never to the worker */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&r->thread, NULL, rest_worker, r);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		rest_free(r);
		return NULL;
	}
	return r;
}

int rest_submit(struct rest *r, const struct rest_request *req)
{
	struct job *j;
	int refused, wake;

	if (!r || !req || req->method < REST_GET || req->method > REST_DELETE || !req->path ||
	    req->path[0] != '/' || strlen(req->path) > PATH_MAX_LEN || !printable(req->path) ||
	    strchr(req->path, ' ') || (!req->body && req->body_len > 0) ||
	    req->body_len > REST_MAX_REQUEST || (req->body && req->method == REST_GET))
		return -1;
	if (req->content_type &&
	    (strlen(req->content_type) > CTYPE_MAX_LEN || !printable(req->content_type)))
		return -1;
	if (!files_ok(req))
		return -1;

	pthread_mutex_lock(&r->lock);
	/* Interaction answers keep a reserve of their own: a queue full of other
	 * requests never stops the bot from answering within its 3 s. */
	refused = r->stopping ||
	          r->pending >=
	              (req->exempt_global ? REST_QUEUE_MAX + REST_QUEUE_RESERVE : REST_QUEUE_MAX);
	if (!refused)
		r->pending++;
	pthread_mutex_unlock(&r->lock);
	if (refused)
		return -1;

	j = calloc(1, sizeof *j);
	if (!j)
		goto fail;
	j->rest = r;
	j->method = req->method;
	j->body_len = req->body_len;
	j->exempt_global = req->exempt_global != 0;
	j->tag = req->tag;
	j->path = rest_dup_str(req->path);
	j->done = calloc(1, sizeof *j->done);
	if (!j->path || !j->done ||
	    rest_limits_route_of(j->method, j->path, &j->route_key, &j->major) != 0)
		goto fail;
	if (req->body) {
		j->body = dup_mem(req->body, req->body_len);
		j->content_type =
		    rest_dup_str(req->content_type ? req->content_type : "application/json");
		if (!j->body || !j->content_type)
			goto fail;
	}
	if (req->nfiles > 0) {
		j->files = calloc((size_t)req->nfiles, sizeof *j->files);
		if (!j->files)
			goto fail;
		j->nfiles = req->nfiles;
		for (int i = 0; i < req->nfiles; i++) {
			const struct rest_file *f = &req->files[i];
			struct job_file *c = &j->files[i];

			c->name = rest_dup_str(f->name);
			c->filename = rest_dup_str(f->filename);
			c->content_type = rest_dup_str(
			    f->content_type ? f->content_type : "application/octet-stream");
			c->data = dup_mem(f->data, f->len);
			c->len = f->len;
			if (!c->name || !c->filename || !c->content_type || !c->data)
				goto fail;
		}
	}

	pthread_mutex_lock(&r->lock);
	/* A non-empty list has a wake-up on its way, which takes this job too. */
	wake = !r->incoming.head;
	rest_jlist_append(&r->incoming, j);
	pthread_mutex_unlock(&r->lock);
	if (wake)
		wake_worker(r);
	return 0;
fail:
	rest_http_job_free(r, j, 0);
	pthread_mutex_lock(&r->lock);
	r->pending--;
	pthread_mutex_unlock(&r->lock);
	return -1;
}

int rest_poll(struct rest *r, struct rest_response *out)
{
	struct done *d;

	if (!r || !out)
		return 0;
	pthread_mutex_lock(&r->lock);
	d = r->done_head;
	if (d) {
		r->done_head = d->next;
		if (!r->done_head)
			r->done_tail = NULL;
	}
	pthread_mutex_unlock(&r->lock);
	if (!d)
		return 0;
	*out = d->resp;
	free(d);
	return 1;
}

int rest_pending(struct rest *r)
{
	int n;

	if (!r)
		return 0;
	pthread_mutex_lock(&r->lock);
	n = r->pending;
	pthread_mutex_unlock(&r->lock);
	return n;
}

void rest_set_share(struct rest *r, int per_second)
{
	pthread_mutex_lock(&r->lock);
	r->share = per_second < 1                      ? 1
	           : per_second > r->global_per_second ? r->global_per_second
	                                               : per_second;
	pthread_mutex_unlock(&r->lock);
	wake_worker(r);
}

int rest_share(struct rest *r)
{
	int n;

	pthread_mutex_lock(&r->lock);
	n = r->share;
	pthread_mutex_unlock(&r->lock);
	return n;
}

void rest_hold_global(struct rest *r, long ms)
{
	double until = rest_mono_now() + (double)(ms > 0 ? ms : 0) / 1000.0;

	pthread_mutex_lock(&r->lock);
	r->hold_until = rest_max_d(r->hold_until, until);
	pthread_mutex_unlock(&r->lock);
	wake_worker(r);
}

long rest_global_429_take(struct rest *r)
{
	long ms;

	pthread_mutex_lock(&r->lock);
	ms = r->global_429_ms;
	r->global_429_ms = 0;
	pthread_mutex_unlock(&r->lock);
	return ms;
}

void rest_stats(struct rest *r, long *rate_limited_waits, long *too_many)
{
	long w = 0, t = 0;

	if (r) {
		pthread_mutex_lock(&r->lock);
		w = r->waits;
		t = r->too_many;
		pthread_mutex_unlock(&r->lock);
	}
	if (rate_limited_waits)
		*rate_limited_waits = w;
	if (too_many)
		*too_many = t;
}

void rest_stop(struct rest *r, long grace_ms)
{
	if (!r)
		return;
	pthread_mutex_lock(&r->lock);
	r->stopping = 1;
	r->stop_deadline = rest_mono_now() + (grace_ms > 0 ? (double)grace_ms / 1000.0 : 0.0);
	pthread_mutex_unlock(&r->lock);
	wake_worker(r);
	pthread_join(r->thread, NULL);
	rest_free(r);
}

void rest_response_free(struct rest_response *resp)
{
	if (!resp)
		return;
	free(resp->body);
	resp->body = NULL;
	resp->len = 0;
}
