/* rest: the HTTP API client against a small HTTP/1.1 server run by the test
 * itself on 127.0.0.1. The server answers from a script of canned responses
 * and records every request it receives (method, path, headers, body, a hash
 * of the whole body, and the CLOCK_MONOTONIC time it arrived), so the tests
 * assert on what really went over the wire and when. Multipart bodies are
 * taken apart here as RFC 7578 describes and Discord's reference ("Uploading
 * Files") shows. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <cjson/cJSON.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "rlyeh/rest.h"

#define TOKEN     "MTIzNDU2Nzg5.test-only.K3ep-this-0ut-of-errors"
#define UA        "DiscordBot (https://example.invalid/rlyeh, 0.1.0)"
#define PREFIX    "/api/v10"
#define MAX_RULES 16
#define MAX_SEEN  64
#define MAX_HELD  64
#define HEAD_CAP  8192
#define BODY_KEEP 4096

/* One canned answer: the next `times` requests with this method and path
 * (below PREFIX, query included) get it. */
struct rule {
	const char *method;
	const char *path;
	int times;
	int status;
	const char *headers; /* extra header lines, each ending in "\r\n" */
	const char *body;
	size_t body_len; /* 0: strlen(body) */
	int stall;       /* keep the connection open, never answer */
	int delay_ms;
};

struct seen {
	char method[16];
	char path[256];
	char head[HEAD_CAP];      /* request line and header lines */
	char body[BODY_KEEP + 1]; /* the first BODY_KEEP bytes */
	size_t body_len;
	uint64_t body_hash; /* of all body_len bytes (fnv1a) */
	double t;
};

struct server {
	int lfd;
	int port;
	pthread_t thread;
	pthread_mutex_t lock;
	int stop;
	int stall_all;
	struct rule rules[MAX_RULES];
	int nrules;
	struct seen seen[MAX_SEEN];
	int nseen;
	int held[MAX_HELD];
	int nheld;
	int answered;
};

static struct server S;

struct waker {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int calls;
};

static struct waker W = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0 };

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* FNV-1a over n bytes, continuing from h. */
static uint64_t fnv1a(const void *p, size_t n, uint64_t h)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

#define FNV_FIRST 0xcbf29ce484222325ULL

static void sleep_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };

	while (nanosleep(&ts, &ts) != 0)
		;
}

/* ---- the server ---- */

static int send_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);

		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Receives into buf[*n..cap) once, waiting at most 2 s. Returns the bytes
 * read, 0 at the end of the stream or on a timeout, -1 on error. */
static ssize_t recv_some(int fd, char *buf, size_t cap, size_t *n)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	ssize_t r;

	if (*n >= cap || poll(&p, 1, 2000) <= 0)
		return 0;
	r = recv(fd, buf + *n, cap - *n, 0);
	if (r > 0)
		*n += (size_t)r;
	return r;
}

static size_t content_length(const char *head)
{
	const char *p = head;

	while ((p = strstr(p, "\r\n")) != NULL) {
		p += 2;
		if (strncasecmp(p, "Content-Length:", 15) == 0)
			return (size_t)strtoul(p + 15, NULL, 10);
	}
	return 0;
}

static const struct rule *match_rule(const struct seen *s)
{
	const char *path = s->path;

	if (strncmp(path, PREFIX, strlen(PREFIX)) == 0)
		path += strlen(PREFIX);
	for (int i = 0; i < S.nrules; i++) {
		struct rule *r = &S.rules[i];

		if (r->times > 0 && strcmp(r->method, s->method) == 0 &&
		    strcmp(r->path, path) == 0) {
			r->times--;
			return r;
		}
	}
	return NULL;
}

/* Reads one request from c, records it, and answers from the script (or
 * 200 {"ok":true}); c is closed unless the answer is to stall. */
static void serve(int c)
{
	static char buf[HEAD_CAP + BODY_KEEP];
	struct seen *s;
	struct rule fallback = { .status = 200, .body = "{\"ok\":true}" };
	const struct rule *rule;
	char *end, *sp1, *sp2, head[1024];
	size_t n = 0, head_len, clen, got, body_len;
	uint64_t hash;
	int stall;

	buf[0] = '\0';
	while (!(end = strstr(buf, "\r\n\r\n"))) {
		if (recv_some(c, buf, HEAD_CAP - 1, &n) <= 0) {
			close(c);
			return;
		}
		buf[n] = '\0';
	}
	head_len = (size_t)(end - buf) + 2;
	clen = content_length(buf);
	got = n - head_len - 2;
	body_len = got;
	hash = fnv1a(buf + head_len + 2, got, FNV_FIRST);
	while (body_len < clen) {
		char scratch[4096];
		size_t m = 0;
		ssize_t r = recv_some(c, scratch, sizeof scratch, &m);

		if (r <= 0)
			break;
		hash = fnv1a(scratch, m, hash);
		if (n + m < sizeof buf - 1) {
			memcpy(buf + n, scratch, m);
			n += m;
		}
		body_len += m;
	}

	pthread_mutex_lock(&S.lock);
	s = S.nseen < MAX_SEEN ? &S.seen[S.nseen] : NULL;
	if (s) {
		memset(s, 0, sizeof *s);
		memcpy(s->head, buf, head_len < HEAD_CAP ? head_len : HEAD_CAP - 1);
		sp1 = strchr(s->head, ' ');
		sp2 = sp1 ? strchr(sp1 + 1, ' ') : NULL;
		if (sp1 && sp2) {
			memcpy(s->method, s->head,
			       (size_t)(sp1 - s->head) < 15 ? (size_t)(sp1 - s->head) : 15);
			memcpy(s->path, sp1 + 1,
			       (size_t)(sp2 - sp1 - 1) < 255 ? (size_t)(sp2 - sp1 - 1) : 255);
		}
		s->body_len = body_len;
		s->body_hash = hash;
		got = n - head_len - 2;
		memcpy(s->body, buf + head_len + 2, got < BODY_KEEP ? got : BODY_KEEP);
		s->t = now_s();
		rule = match_rule(s);
		S.nseen++;
	} else {
		rule = NULL;
	}
	if (!rule)
		rule = &fallback;
	stall = rule->stall || (S.stall_all && rule == &fallback);
	if (stall && S.nheld < MAX_HELD)
		S.held[S.nheld++] = c;
	pthread_mutex_unlock(&S.lock);
	if (stall)
		return;

	if (rule->delay_ms > 0)
		sleep_s(rule->delay_ms / 1000.0);
	body_len = rule->body_len ? rule->body_len : strlen(rule->body);
	snprintf(head, sizeof head,
	         "HTTP/1.1 %d Canned\r\nContent-Type: application/json\r\nContent-Length: %zu\r\n"
	         "Connection: close\r\n%s\r\n",
	         rule->status, body_len, rule->headers ? rule->headers : "");
	if (send_all(c, head, strlen(head)) == 0 && send_all(c, rule->body, body_len) == 0) {
		pthread_mutex_lock(&S.lock);
		S.answered++;
		pthread_mutex_unlock(&S.lock);
	}
	close(c);
}

static void *server_main(void *arg)
{
	(void)arg;
	for (;;) {
		struct pollfd p = { .fd = S.lfd, .events = POLLIN };
		int stop, c;

		pthread_mutex_lock(&S.lock);
		stop = S.stop;
		pthread_mutex_unlock(&S.lock);
		if (stop)
			break;
		if (poll(&p, 1, 20) <= 0)
			continue;
		c = accept(S.lfd, NULL, NULL);
		if (c >= 0)
			serve(c);
	}
	return NULL;
}

/* Starts the server on loopback port `port` (0: any free one, in S.port). */
static void server_start_at(const struct rule *rules, int nrules, int stall_all, int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	socklen_t len = sizeof a;

	memset(&S, 0, sizeof S);
	assert_true(nrules <= MAX_RULES);
	if (nrules > 0)
		memcpy(S.rules, rules, (size_t)nrules * sizeof *rules);
	S.nrules = nrules;
	S.stall_all = stall_all;
	assert_int_equal(pthread_mutex_init(&S.lock, NULL), 0);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	S.lfd = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(S.lfd >= 0);
	assert_int_equal(bind(S.lfd, (struct sockaddr *)&a, sizeof a), 0);
	assert_int_equal(listen(S.lfd, 128), 0);
	assert_int_equal(getsockname(S.lfd, (struct sockaddr *)&a, &len), 0);
	S.port = ntohs(a.sin_port);
	assert_int_equal(pthread_create(&S.thread, NULL, server_main, NULL), 0);
}

static void server_start(const struct rule *rules, int nrules, int stall_all)
{
	server_start_at(rules, nrules, stall_all, 0);
}

/* A loopback port nothing listens on (for now). */
static int free_port(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof a;
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	assert_true(fd >= 0);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
	close(fd);
	return ntohs(a.sin_port);
}

static void server_stop(void)
{
	pthread_mutex_lock(&S.lock);
	S.stop = 1;
	pthread_mutex_unlock(&S.lock);
	pthread_join(S.thread, NULL);
	for (int i = 0; i < S.nheld; i++)
		close(S.held[i]);
	close(S.lfd);
	pthread_mutex_destroy(&S.lock);
}

static int seen_count(void)
{
	int n;

	pthread_mutex_lock(&S.lock);
	n = S.nseen;
	pthread_mutex_unlock(&S.lock);
	return n;
}

static void wait_seen(int n, double timeout)
{
	double end = now_s() + timeout;

	while (seen_count() < n) {
		if (now_s() > end)
			fail_msg("the server saw %d requests, not %d", seen_count(), n);
		sleep_s(0.002);
	}
}

/* The index of the nth (from 0) request seen with this method, path (below
 * PREFIX) and, when body is not NULL, body; -1 when there is none. */
static int find_seen(const char *method, const char *path, const char *body, int nth)
{
	int n = seen_count();

	for (int i = 0; i < n; i++) {
		const struct seen *s = &S.seen[i];

		if (strcmp(s->method, method) == 0 && strcmp(s->path + strlen(PREFIX), path) == 0 &&
		    (!body || strcmp(s->body, body) == 0) && nth-- == 0)
			return i;
	}
	return -1;
}

/* Copies the value of header `name` of a seen request into out. Returns 1,
 * or 0 when the request has no such header. */
static int header_value(const struct seen *s, const char *name, char *out, size_t cap)
{
	const char *p = s->head;
	size_t nl = strlen(name);

	while ((p = strstr(p, "\r\n")) != NULL) {
		p += 2;
		if (strncasecmp(p, name, nl) == 0 && p[nl] == ':') {
			const char *v = p + nl + 1, *e;

			while (*v == ' ')
				v++;
			e = strstr(v, "\r\n");
			if (!e)
				e = v + strlen(v);
			snprintf(out, cap, "%.*s", (int)(e - v), v);
			return 1;
		}
	}
	return 0;
}

static int closed_port(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof a;
	int fd = socket(AF_INET, SOCK_STREAM, 0), port;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
	port = ntohs(a.sin_port);
	close(fd);
	return port;
}

/* ---- the client side ---- */

static void on_wake(void *ctx)
{
	struct waker *w = ctx;

	pthread_mutex_lock(&w->lock);
	w->calls++;
	pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->lock);
}

static int wake_calls(void)
{
	int n;

	pthread_mutex_lock(&W.lock);
	n = W.calls;
	pthread_mutex_unlock(&W.lock);
	return n;
}

static struct rest *start_rest(int port, int max_retries, int per_second, long timeout_ms)
{
	char url[64];
	struct rest_config cfg = {
		.base_url = url,
		.token = TOKEN,
		.user_agent = UA,
		.timeout_ms = timeout_ms,
		.max_retries = max_retries,
		.global_per_second = per_second,
	};
	struct rest *r;

	snprintf(url, sizeof url, "http://127.0.0.1:%d" PREFIX, port);
	pthread_mutex_lock(&W.lock);
	W.calls = 0;
	pthread_mutex_unlock(&W.lock);
	r = rest_start(&cfg, on_wake, &W);
	assert_non_null(r);
	return r;
}

/* Waits until the client has taken n 429s in (so that what follows is sent
 * while the limit they set holds). */
static void wait_too_many(struct rest *r, long n, double timeout)
{
	double end = now_s() + timeout;
	long got;

	for (;;) {
		rest_stats(r, NULL, &got);
		if (got >= n)
			return;
		if (now_s() > end)
			fail_msg("%ld 429s taken in, not %ld", got, n);
		sleep_s(0.002);
	}
}

static void submit(struct rest *r, int method, const char *path, const char *body, uint64_t tag,
                   int exempt)
{
	struct rest_request req = {
		.method = method,
		.path = path,
		.body = body,
		.body_len = body ? strlen(body) : 0,
		.exempt_global = exempt,
		.tag = tag,
	};

	assert_int_equal(rest_submit(r, &req), 0);
}

/* Takes n responses (waiting for `wake` between polls), stored by tag - 1
 * (tags run from 1 to n). */
static void take(struct rest *r, struct rest_response *out, int n, double timeout)
{
	double end = now_s() + timeout;
	struct rest_response resp;
	int got = 0;

	memset(out, 0, (size_t)n * sizeof *out);
	while (got < n) {
		if (rest_poll(r, &resp)) {
			assert_true(resp.tag >= 1 && resp.tag <= (uint64_t)n);
			assert_int_equal(out[resp.tag - 1].tag, 0);
			out[resp.tag - 1] = resp;
			got++;
			continue;
		}
		if (now_s() > end)
			fail_msg("%d responses of %d came", got, n);
		pthread_mutex_lock(&W.lock);
		{
			struct timespec ts;

			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_nsec += 10 * 1000 * 1000;
			if (ts.tv_nsec >= 1000000000L) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000L;
			}
			pthread_cond_timedwait(&W.cond, &W.lock, &ts);
		}
		pthread_mutex_unlock(&W.lock);
	}
}

static void free_all(struct rest_response *resp, int n)
{
	for (int i = 0; i < n; i++) {
		assert_null(strstr(resp[i].error, TOKEN));
		assert_null(strstr(resp[i].error, "K3ep-this-0ut"));
		rest_response_free(&resp[i]);
		assert_null(resp[i].body);
	}
}

/* ---- the tests ---- */

static void test_requests_as_received(void **state)
{
	struct rest_response resp[4];
	struct rest_request put = {
		.method = REST_PUT,
		.path = "/channels/1/pins/9",
		.body = "pin it",
		.body_len = 6,
		.content_type = "text/plain",
		.tag = 3,
	};
	struct rule rules[] = {
		{ .method = "POST",
		  .path = "/channels/1/messages",
		  .times = 1,
		  .status = 200,
		  .body = "{\"id\":\"42\"}" },
	};
	char v[256];
	struct rest *r;
	int i;

	(void)state;
	server_start(rules, 1, 0);
	r = start_rest(S.port, 0, 0, 0);
	submit(r, REST_POST, "/channels/1/messages", "{\"content\":\"hi\"}", 1, 0);
	submit(r, REST_GET, "/channels/1/messages/9?limit=1", NULL, 2, 0);
	assert_int_equal(rest_submit(r, &put), 0);
	submit(r, REST_DELETE, "/channels/1/messages/9", NULL, 4, 0);
	take(r, resp, 4, 5.0);
	assert_int_equal(seen_count(), 4);
	assert_int_equal(rest_pending(r), 0);
	assert_true(wake_calls() >= 1);

	i = find_seen("POST", "/channels/1/messages", NULL, 0);
	assert_true(i >= 0);
	assert_string_equal(S.seen[i].body, "{\"content\":\"hi\"}");
	assert_int_equal(S.seen[i].body_len, 16);
	assert_true(header_value(&S.seen[i], "Authorization", v, sizeof v));
	assert_string_equal(v, "Bot " TOKEN);
	assert_true(header_value(&S.seen[i], "User-Agent", v, sizeof v));
	assert_string_equal(v, UA);
	assert_true(header_value(&S.seen[i], "Content-Type", v, sizeof v));
	assert_string_equal(v, "application/json");
	assert_true(header_value(&S.seen[i], "Content-Length", v, sizeof v));
	assert_string_equal(v, "16");
	assert_int_equal(resp[0].status, 200);
	assert_string_equal(resp[0].body, "{\"id\":\"42\"}");
	assert_int_equal(resp[0].len, 11);
	assert_int_equal(resp[0].attempts, 1);
	assert_string_equal(resp[0].error, "");

	i = find_seen("GET", "/channels/1/messages/9?limit=1", NULL, 0);
	assert_true(i >= 0);
	assert_true(header_value(&S.seen[i], "Authorization", v, sizeof v));
	assert_string_equal(v, "Bot " TOKEN);
	assert_false(header_value(&S.seen[i], "Content-Type", v, sizeof v));
	assert_int_equal(S.seen[i].body_len, 0);
	assert_int_equal(resp[1].status, 200);
	assert_string_equal(resp[1].body, "{\"ok\":true}");

	i = find_seen("PUT", "/channels/1/pins/9", NULL, 0);
	assert_true(i >= 0);
	assert_string_equal(S.seen[i].body, "pin it");
	assert_true(header_value(&S.seen[i], "Content-Type", v, sizeof v));
	assert_string_equal(v, "text/plain");
	assert_int_equal(resp[2].status, 200);

	i = find_seen("DELETE", "/channels/1/messages/9", NULL, 0);
	assert_true(i >= 0);
	assert_int_equal(S.seen[i].body_len, 0);
	assert_false(header_value(&S.seen[i], "Content-Type", v, sizeof v));
	assert_int_equal(resp[3].status, 200);

	free_all(resp, 4);
	rest_stop(r, 1000);
	server_stop();
}

/* A 429 on one channel's route: that route's next request (the retry, then
 * a later one) waits retry_after from the body (0.4 s, not the 3 s of the
 * Retry-After header), another channel's request goes at once. */
static void test_429_holds_its_bucket(void **state)
{
	struct rest_response resp[3];
	struct rule rules[] = {
		{ .method = "POST",
		  .path = "/channels/1/messages",
		  .times = 1,
		  .status = 429,
		  .headers =
		      "Retry-After: 3\r\nX-RateLimit-Limit: 5\r\nX-RateLimit-Remaining: 0\r\n"
		      "X-RateLimit-Reset-After: 0.4\r\nX-RateLimit-Bucket: abcd1234\r\n"
		      "X-RateLimit-Scope: user\r\n",
		  .body = "{\"message\": \"You are being rate limited.\", \"retry_after\": 0.4, "
		          "\"global\": false}" },
	};
	struct rest *r;
	double t0, t_b;
	long waits, too_many;
	int a2, b, c;

	(void)state;
	server_start(rules, 1, 0);
	r = start_rest(S.port, 0, 0, 0);
	submit(r, REST_POST, "/channels/1/messages", "{\"content\":\"A\"}", 1, 0);
	wait_too_many(r, 1, 5.0);
	t0 = S.seen[0].t;
	t_b = now_s();
	submit(r, REST_POST, "/channels/2/messages", "{\"content\":\"B\"}", 2, 0);
	submit(r, REST_POST, "/channels/1/messages", "{\"content\":\"C\"}", 3, 0);
	take(r, resp, 3, 5.0);

	assert_int_equal(seen_count(), 4);
	a2 = find_seen("POST", "/channels/1/messages", "{\"content\":\"A\"}", 1);
	b = find_seen("POST", "/channels/2/messages", NULL, 0);
	c = find_seen("POST", "/channels/1/messages", "{\"content\":\"C\"}", 0);
	assert_true(a2 > 0 && b > 0 && c > 0);
	assert_true(S.seen[b].t - t_b < 0.3);
	assert_true(S.seen[a2].t - t0 >= 0.38);
	assert_true(S.seen[a2].t - t0 < 2.0);
	assert_true(c > a2);
	assert_true(S.seen[c].t - t0 >= 0.38);

	assert_int_equal(resp[0].status, 200);
	assert_int_equal(resp[0].attempts, 2);
	assert_int_equal(resp[1].status, 200);
	assert_int_equal(resp[1].attempts, 1);
	assert_int_equal(resp[2].status, 200);
	assert_int_equal(resp[2].attempts, 1);
	rest_stats(r, &waits, &too_many);
	assert_int_equal(too_many, 1);
	assert_true(waits >= 1);
	free_all(resp, 3);
	rest_stop(r, 1000);
	server_stop();
}

/* A global 429 holds every request for retry_after, except the exempt
 * interaction callbacks. */
static void test_global_429_holds_all(void **state)
{
	struct rest_response resp[3];
	struct rule rules[] = {
		{ .method = "GET",
		  .path = "/gateway/bot",
		  .times = 1,
		  .status = 429,
		  .headers =
		      "Retry-After: 3\r\nX-RateLimit-Global: true\r\nX-RateLimit-Scope: global\r\n",
		  .body = "{\"message\": \"You are being rate limited.\", \"retry_after\": 0.4, "
		          "\"global\": true}" },
	};
	struct rest *r;
	double t0, t_c;
	long too_many;
	int a2, b, c;

	(void)state;
	server_start(rules, 1, 0);
	r = start_rest(S.port, 0, 0, 0);
	submit(r, REST_GET, "/gateway/bot", NULL, 1, 0);
	wait_too_many(r, 1, 5.0);
	t0 = S.seen[0].t;
	submit(r, REST_POST, "/channels/3/messages", "{\"content\":\"B\"}", 2, 0);
	t_c = now_s();
	submit(r, REST_POST, "/interactions/77/aW50ZXJhY3Rpb24/callback", "{\"type\":4}", 3, 1);
	take(r, resp, 3, 5.0);

	assert_int_equal(seen_count(), 4);
	a2 = find_seen("GET", "/gateway/bot", NULL, 1);
	b = find_seen("POST", "/channels/3/messages", NULL, 0);
	c = find_seen("POST", "/interactions/77/aW50ZXJhY3Rpb24/callback", NULL, 0);
	assert_true(a2 > 0 && b > 0 && c > 0);
	assert_true(S.seen[a2].t - t0 >= 0.38 && S.seen[a2].t - t0 < 2.0);
	assert_true(S.seen[b].t - t0 >= 0.38 && S.seen[b].t - t0 < 2.0);
	assert_true(S.seen[c].t - t_c < 0.3);
	assert_int_equal(resp[0].status, 200);
	assert_int_equal(resp[0].attempts, 2);
	assert_int_equal(resp[1].attempts, 1);
	assert_int_equal(resp[2].attempts, 1);
	rest_stats(r, NULL, &too_many);
	assert_int_equal(too_many, 1);
	free_all(resp, 3);
	rest_stop(r, 1000);
	server_stop();
}

/* X-RateLimit-Remaining: 0 holds the bucket's next request until
 * Reset-After has elapsed: editing another message of the same channel
 * shares the route, editing one in another channel does not. */
static void test_remaining_zero_holds_its_bucket(void **state)
{
	struct rest_response resp[3];
	struct rule rules[] = {
		{ .method = "PATCH",
		  .path = "/channels/5/messages/100",
		  .times = 1,
		  .status = 200,
		  .headers = "X-RateLimit-Limit: 1\r\nX-RateLimit-Remaining: 0\r\n"
		             "X-RateLimit-Reset: 1470173023\r\nX-RateLimit-Reset-After: 0.4\r\n"
		             "X-RateLimit-Bucket: edit-bucket\r\n",
		  .body = "{\"id\":\"100\"}" },
	};
	struct rest *r;
	double t0, t_c;
	long waits, too_many;
	int b, c;

	(void)state;
	server_start(rules, 1, 0);
	r = start_rest(S.port, 0, 0, 0);
	submit(r, REST_PATCH, "/channels/5/messages/100", "{\"content\":\"a\"}", 1, 0);
	take(r, resp, 1, 5.0);
	assert_int_equal(resp[0].status, 200);
	free_all(resp, 1);
	t0 = S.seen[0].t;
	submit(r, REST_PATCH, "/channels/5/messages/200", "{\"content\":\"b\"}", 1, 0);
	t_c = now_s();
	submit(r, REST_PATCH, "/channels/6/messages/100", "{\"content\":\"c\"}", 2, 0);
	take(r, resp, 2, 5.0);

	assert_int_equal(seen_count(), 3);
	b = find_seen("PATCH", "/channels/5/messages/200", NULL, 0);
	c = find_seen("PATCH", "/channels/6/messages/100", NULL, 0);
	assert_true(b > 0 && c > 0);
	assert_true(S.seen[b].t - t0 >= 0.38 && S.seen[b].t - t0 < 2.0);
	assert_true(S.seen[c].t - t_c < 0.3);
	assert_true(c < b);
	assert_int_equal(resp[0].status, 200);
	assert_int_equal(resp[1].status, 200);
	rest_stats(r, &waits, &too_many);
	assert_true(waits >= 1);
	assert_int_equal(too_many, 0);
	free_all(resp, 2);
	rest_stop(r, 1000);
	server_stop();
}

/* At most global_per_second counted requests in any second; exempt ones
 * pass. */
static void test_global_rate(void **state)
{
	struct rest_response resp[7];
	struct rest *r;
	char path[64];
	double t0;
	int early = 0, late = 0, exempt;
	long waits;

	(void)state;
	server_start(NULL, 0, 0);
	r = start_rest(S.port, 0, 4, 0);
	for (int i = 0; i < 6; i++) {
		snprintf(path, sizeof path, "/channels/%d/messages", 10 + i);
		submit(r, REST_POST, path, "{}", (uint64_t)i + 1, 0);
	}
	submit(r, REST_POST, "/interactions/5/dG9rZW4/callback", "{\"type\":5}", 7, 1);
	take(r, resp, 7, 5.0);

	assert_int_equal(seen_count(), 7);
	t0 = S.seen[0].t;
	exempt = find_seen("POST", "/interactions/5/dG9rZW4/callback", NULL, 0);
	assert_true(exempt >= 0);
	for (int i = 0; i < 7; i++) {
		double dt = S.seen[i].t - t0;

		if (i == exempt)
			continue;
		if (dt < 0.5)
			early++;
		else if (dt >= 0.9 && dt < 2.0)
			late++;
	}
	assert_int_equal(early, 4);
	assert_int_equal(late, 2);
	assert_true(S.seen[exempt].t - t0 < 0.5);
	for (int i = 0; i < 7; i++)
		assert_int_equal(resp[i].status, 200);
	rest_stats(r, &waits, NULL);
	assert_true(waits >= 2);
	free_all(resp, 7);
	rest_stop(r, 1000);
	server_stop();
}

/* Discord counts a request when it arrives: an attempt that could not
 * connect sent nothing and takes no place in the global window. With one
 * request a second, a request made while the first waits to retry goes at
 * once, and the retry a second after it. */
static void test_global_unsent(void **state)
{
	struct rest_response resp[2];
	struct rest *r;
	int port = free_port(), a, b;
	double t0;

	(void)state;
	r = start_rest(port, 2, 1, 0);
	t0 = now_s();
	submit(r, REST_POST, "/channels/30/messages", "{}", 1, 0);
	sleep_s(0.15); /* refused at once; retried 0.5 to 0.625 s after */
	server_start_at(NULL, 0, 0, port);
	submit(r, REST_POST, "/channels/31/messages", "{}", 2, 0);
	take(r, resp, 2, 5.0);

	a = find_seen("POST", "/channels/30/messages", NULL, 0);
	b = find_seen("POST", "/channels/31/messages", NULL, 0);
	assert_true(a >= 0 && b >= 0);
	assert_int_equal(seen_count(), 2);
	assert_true(S.seen[b].t - t0 < 0.45);
	assert_true(S.seen[a].t - S.seen[b].t >= 0.95);
	assert_int_equal(resp[0].status, 200);
	assert_int_equal(resp[1].status, 200);
	free_all(resp, 2);
	rest_stop(r, 1000);
	server_stop();
}

/* A share of the global limit (several processes on one token): at most
 * that many counted requests in any second, clamped to 1..global_per_second,
 * exempt ones pass. */
static void test_global_share(void **state)
{
	struct rest_response resp[6];
	struct rest *r;
	char path[64];
	double t0;
	int early = 0, late = 0, exempt;

	(void)state;
	server_start(NULL, 0, 0);
	r = start_rest(S.port, 0, 6, 0);
	assert_int_equal(rest_share(r), 6);
	rest_set_share(r, 100);
	assert_int_equal(rest_share(r), 6);
	rest_set_share(r, 0);
	assert_int_equal(rest_share(r), 1);
	rest_set_share(r, 2);
	assert_int_equal(rest_share(r), 2);
	for (int i = 0; i < 5; i++) {
		snprintf(path, sizeof path, "/channels/%d/messages", 20 + i);
		submit(r, REST_POST, path, "{}", (uint64_t)i + 1, 0);
	}
	submit(r, REST_POST, "/interactions/6/dG9rZW4/callback", "{\"type\":5}", 6, 1);
	take(r, resp, 6, 6.0);

	assert_int_equal(seen_count(), 6);
	t0 = S.seen[0].t;
	exempt = find_seen("POST", "/interactions/6/dG9rZW4/callback", NULL, 0);
	assert_true(exempt >= 0);
	assert_true(S.seen[exempt].t - t0 < 0.5);
	for (int i = 0; i < 6; i++) {
		double dt = S.seen[i].t - t0;

		if (i == exempt)
			continue;
		if (dt < 0.5)
			early++;
		else if (dt >= 1.9)
			late++;
	}
	/* 2 at once, 2 a second later, the fifth two seconds later */
	assert_int_equal(early, 2);
	assert_int_equal(late, 1);
	free_all(resp, 6);
	rest_stop(r, 1000);
	server_stop();
}

/* rest_hold_global (another process got a global 429) holds the counted
 * requests, not the exempt ones; a global 429 received here is handed over
 * once by rest_global_429_take, a route's 429 not. */
static void test_global_hold_and_take(void **state)
{
	struct rest_response resp[3];
	struct rule rules[] = {
		{ .method = "GET",
		  .path = "/gateway/bot",
		  .times = 1,
		  .status = 429,
		  .headers = "X-RateLimit-Global: true\r\nX-RateLimit-Scope: global\r\n",
		  .body = "{\"message\": \"You are being rate limited.\", \"retry_after\": 0.25, "
		          "\"global\": true}" },
		{ .method = "GET",
		  .path = "/users/@me",
		  .times = 1,
		  .status = 429,
		  .headers = "X-RateLimit-Scope: user\r\n",
		  .body = "{\"message\": \"You are being rate limited.\", \"retry_after\": 0.1, "
		          "\"global\": false}" },
	};
	struct rest *r;
	double t_hold;
	int b, c;

	(void)state;
	server_start(rules, 2, 0);
	r = start_rest(S.port, 0, 0, 0);
	assert_int_equal(rest_global_429_take(r), 0);
	submit(r, REST_GET, "/users/@me", NULL, 1, 0);
	take(r, resp, 1, 5.0);
	assert_int_equal(resp[0].status, 200);
	free_all(resp, 1);
	assert_int_equal(rest_global_429_take(r), 0);
	submit(r, REST_GET, "/gateway/bot", NULL, 1, 0);
	take(r, resp, 1, 5.0);
	assert_int_equal(resp[0].status, 200);
	free_all(resp, 1);
	assert_int_equal(rest_global_429_take(r), 251);
	assert_int_equal(rest_global_429_take(r), 0);

	rest_hold_global(r, 400);
	t_hold = now_s();
	submit(r, REST_POST, "/channels/3/messages", "{\"content\":\"B\"}", 1, 0);
	submit(r, REST_POST, "/interactions/78/aW50ZXJhY3Rpb24/callback", "{\"type\":4}", 2, 1);
	take(r, resp, 2, 5.0);
	assert_int_equal(seen_count(), 6);
	b = find_seen("POST", "/channels/3/messages", NULL, 0);
	c = find_seen("POST", "/interactions/78/aW50ZXJhY3Rpb24/callback", NULL, 0);
	assert_true(b >= 0 && c >= 0);
	assert_true(S.seen[b].t - t_hold >= 0.38 && S.seen[b].t - t_hold < 2.0);
	assert_true(S.seen[c].t - t_hold < 0.3);
	free_all(resp, 2);
	rest_stop(r, 1000);
	server_stop();
}

/* 5xx: retried with a growing backoff; after max_retries the last answer
 * is delivered. One success after a 502 ends the retries. */
static void test_5xx_retried(void **state)
{
	struct rest_response resp[2];
	struct rule rules[] = {
		{ .method = "POST",
		  .path = "/channels/8/messages",
		  .times = 3,
		  .status = 503,
		  .body = "{\"message\":\"upstream unavailable\"}" },
		{ .method = "POST",
		  .path = "/channels/9/messages",
		  .times = 1,
		  .status = 502,
		  .body = "bad gateway" },
	};
	struct rest *r;
	int s[3];

	(void)state;
	server_start(rules, 2, 0);
	r = start_rest(S.port, 2, 0, 0);
	submit(r, REST_POST, "/channels/8/messages", "{}", 1, 0);
	submit(r, REST_POST, "/channels/9/messages", "{}", 2, 0);
	take(r, resp, 2, 8.0);

	for (int i = 0; i < 3; i++) {
		s[i] = find_seen("POST", "/channels/8/messages", NULL, i);
		assert_true(s[i] >= 0);
	}
	assert_int_equal(find_seen("POST", "/channels/8/messages", NULL, 3), -1);
	assert_true(S.seen[s[1]].t - S.seen[s[0]].t >= 0.45);
	assert_true(S.seen[s[1]].t - S.seen[s[0]].t < 1.2);
	assert_true(S.seen[s[2]].t - S.seen[s[1]].t >= 0.95);
	assert_true(S.seen[s[2]].t - S.seen[s[1]].t < 2.2);
	assert_int_equal(resp[0].status, 503);
	assert_int_equal(resp[0].attempts, 3);
	assert_string_equal(resp[0].body, "{\"message\":\"upstream unavailable\"}");
	assert_non_null(strstr(resp[0].error, "503"));

	assert_true(find_seen("POST", "/channels/9/messages", NULL, 1) >= 0);
	assert_int_equal(find_seen("POST", "/channels/9/messages", NULL, 2), -1);
	assert_int_equal(resp[1].status, 200);
	assert_int_equal(resp[1].attempts, 2);
	assert_string_equal(resp[1].error, "");
	free_all(resp, 2);
	rest_stop(r, 1000);
	server_stop();
}

/* Transport errors (refused connection, per-attempt timeout) are retried
 * up to max_retries, then delivered with status 0. */
static void test_transport_errors_retried(void **state)
{
	struct rest_response resp[1];
	struct rest *r;
	double t;

	(void)state;
	r = start_rest(closed_port(), 1, 0, 0);
	submit(r, REST_GET, "/gateway/bot", NULL, 1, 0);
	take(r, resp, 1, 5.0);
	assert_int_equal(resp[0].status, 0);
	assert_int_equal(resp[0].attempts, 2);
	assert_null(resp[0].body);
	assert_true(strlen(resp[0].error) > 0);
	free_all(resp, 1);
	rest_stop(r, 0);

	server_start(NULL, 0, 1);
	r = start_rest(S.port, 1, 0, 200);
	t = now_s();
	submit(r, REST_GET, "/gateway/bot", NULL, 1, 0);
	take(r, resp, 1, 5.0);
	assert_true(now_s() - t >= 0.85);
	assert_int_equal(seen_count(), 2);
	assert_int_equal(resp[0].status, 0);
	assert_int_equal(resp[0].attempts, 2);
	assert_non_null(strstr(resp[0].error, "imeout"));
	free_all(resp, 1);
	rest_stop(r, 0);
	server_stop();
}

/* 401, 403, 404 and 400 are delivered as they are, after one attempt. */
static void test_4xx_not_retried(void **state)
{
	static const struct {
		const char *path;
		int status;
		const char *body;
	} cases[] = {
		{ "/channels/1/messages", 401,
		  "{\"message\": \"401: Unauthorized\", \"code\": 0}" },
		{ "/channels/2/messages", 403,
		  "{\"message\": \"Missing Access\", \"code\": 50001}" },
		{ "/channels/3/messages", 404,
		  "{\"message\": \"Unknown Channel\", \"code\": 10003}" },
		{ "/channels/4/messages", 400,
		  "{\"message\": \"Invalid Form Body\", \"code\": 50035}" },
	};
	struct rest_response resp[4];
	struct rule rules[4];
	char want[32];
	struct rest *r;

	(void)state;
	for (int i = 0; i < 4; i++)
		rules[i] = (struct rule){ .method = "POST",
			                  .path = cases[i].path,
			                  .times = 5,
			                  .status = cases[i].status,
			                  .body = cases[i].body };
	server_start(rules, 4, 0);
	r = start_rest(S.port, 3, 0, 0);
	for (int i = 0; i < 4; i++)
		submit(r, REST_POST, cases[i].path, "{}", (uint64_t)i + 1, 0);
	take(r, resp, 4, 5.0);
	sleep_s(0.6);
	assert_int_equal(seen_count(), 4);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(resp[i].status, cases[i].status);
		assert_int_equal(resp[i].attempts, 1);
		assert_string_equal(resp[i].body, cases[i].body);
		snprintf(want, sizeof want, "%d", cases[i].status);
		assert_non_null(strstr(resp[i].error, want));
	}
	free_all(resp, 4);
	rest_stop(r, 1000);
	server_stop();
}

/* Responses ready while others wait to be taken share one wake-up; once
 * rest_poll has taken them all, the next response wakes again. */
static void test_wake_once_per_drain(void **state)
{
	struct rule rules[] = {
		{ .method = "POST",
		  .path = "/channels/1/messages",
		  .times = 8,
		  .status = 200,
		  .body = "{}" },
		{ .method = "POST",
		  .path = "/channels/2/messages",
		  .times = 8,
		  .status = 200,
		  .body = "{}" },
		{ .method = "POST",
		  .path = "/channels/3/messages",
		  .times = 8,
		  .status = 200,
		  .body = "{}" },
	};
	struct rest_response resp[3];
	struct rest *r;
	double end;

	(void)state;
	server_start(rules, 3, 0);
	r = start_rest(S.port, 0, 0, 0);
	for (int round = 0; round < 2; round++) {
		for (int i = 0; i < 3; i++) {
			char path[32];
			snprintf(path, sizeof path, "/channels/%d/messages", i + 1);
			submit(r, REST_POST, path, "{}", (uint64_t)i + 1, 0);
		}
		/* all three answered, none taken yet */
		end = now_s() + 5.0;
		while (rest_pending(r) > 0 && now_s() < end)
			sleep_s(0.01);
		assert_int_equal(rest_pending(r), 0);
		assert_int_equal(wake_calls(), round + 1);
		take(r, resp, 3, 1.0);
		for (int i = 0; i < 3; i++)
			assert_int_equal(resp[i].status, 200);
		free_all(resp, 3);
		assert_int_equal(rest_poll(r, &resp[0]), 0);
	}
	assert_int_equal(seen_count(), 6);
	rest_stop(r, 1000);
	server_stop();
}

/* A response body over REST_MAX_RESPONSE is refused with an error (and not
 * retried); one of exactly REST_MAX_RESPONSE bytes is delivered whole. */
static void test_response_cap(void **state)
{
	struct rest_response resp[2];
	char *big = malloc(REST_MAX_RESPONSE + 1);
	struct rule rules[2];
	struct rest *r;

	(void)state;
	assert_non_null(big);
	memset(big, 'x', REST_MAX_RESPONSE + 1);
	rules[0] = (struct rule){ .method = "GET",
		                  .path = "/too-big",
		                  .times = 1,
		                  .status = 200,
		                  .body = big,
		                  .body_len = REST_MAX_RESPONSE + 1 };
	rules[1] = (struct rule){ .method = "GET",
		                  .path = "/just-fits",
		                  .times = 1,
		                  .status = 200,
		                  .body = big,
		                  .body_len = REST_MAX_RESPONSE };
	server_start(rules, 2, 0);
	r = start_rest(S.port, 3, 0, 0);
	submit(r, REST_GET, "/too-big", NULL, 1, 0);
	submit(r, REST_GET, "/just-fits", NULL, 2, 0);
	take(r, resp, 2, 5.0);
	assert_int_equal(resp[0].status, 0);
	assert_null(resp[0].body);
	assert_int_equal(resp[0].len, 0);
	assert_int_equal(resp[0].attempts, 1);
	assert_true(strlen(resp[0].error) > 0);
	assert_int_equal(find_seen("GET", "/too-big", NULL, 1), -1);
	assert_int_equal(resp[1].status, 200);
	assert_int_equal(resp[1].len, REST_MAX_RESPONSE);
	assert_int_equal(resp[1].body[0], 'x');
	assert_int_equal(resp[1].body[REST_MAX_RESPONSE - 1], 'x');
	assert_int_equal(resp[1].body[REST_MAX_RESPONSE], '\0');
	free_all(resp, 2);
	rest_stop(r, 1000);
	server_stop();
	free(big);
}

/* rest_submit refuses request bodies over REST_MAX_REQUEST and malformed
 * requests, queueing nothing; the NULL cases are no-ops. */
static void test_submit_refusals(void **state)
{
	char *big = malloc(REST_MAX_REQUEST + 1);
	struct rest_config none = { .base_url = "http://127.0.0.1:1", .user_agent = UA };
	struct rest_response out;
	struct rest_request req;
	struct rest *r;

	(void)state;
	assert_non_null(big);
	memset(big, 'a', REST_MAX_REQUEST + 1);
	assert_null(rest_start(NULL, NULL, NULL));
	assert_null(rest_start(&none, NULL, NULL));
	assert_int_equal(rest_submit(NULL, NULL), -1);
	assert_int_equal(rest_poll(NULL, &out), 0);
	assert_int_equal(rest_pending(NULL), 0);
	rest_stop(NULL, 0);

	r = start_rest(closed_port(), 0, 0, 0);
	req = (struct rest_request){ .method = REST_POST,
		                     .path = "/channels/1/messages",
		                     .body = big,
		                     .body_len = REST_MAX_REQUEST + 1 };
	assert_int_equal(rest_submit(r, &req), -1);
	req.path = NULL;
	req.body_len = 2;
	assert_int_equal(rest_submit(r, &req), -1);
	req.path = "channels/1/messages";
	assert_int_equal(rest_submit(r, &req), -1);
	req.path = "/channels/1/messages\r\nX-Injected: 1";
	assert_int_equal(rest_submit(r, &req), -1);
	req.path = "/channels/1/messages";
	req.method = 99;
	assert_int_equal(rest_submit(r, &req), -1);
	req.method = REST_POST;
	req.body = NULL;
	assert_int_equal(rest_submit(r, &req), -1);
	req.method = REST_GET;
	req.body = "{}";
	assert_int_equal(rest_submit(r, &req), -1);
	req.method = REST_POST;
	req.content_type = "text/plain\r\nX-Injected: 1";
	assert_int_equal(rest_submit(r, &req), -1);
	assert_int_equal(rest_pending(r), 0);

	req = (struct rest_request){ .method = REST_POST,
		                     .path = "/channels/1/messages",
		                     .body = big,
		                     .body_len = REST_MAX_REQUEST };
	assert_int_equal(rest_submit(r, &req), 0);
	assert_int_equal(rest_pending(r), 1);
	rest_stop(r, 0);
	free(big);
}

/* REST_QUEUE_MAX requests waiting or in flight: the next is refused. The
 * server never answers; stopping with a short grace returns promptly. */
static void test_queue_bound(void **state)
{
	struct rest_request req = {
		.method = REST_POST, .path = "/channels/1/messages", .body = "{}", .body_len = 2
	};
	struct rest *r;
	double t;

	(void)state;
	server_start(NULL, 0, 1);
	r = start_rest(S.port, 0, 0, 0);
	for (int i = 0; i < REST_QUEUE_MAX; i++) {
		req.tag = (uint64_t)i + 1;
		assert_int_equal(rest_submit(r, &req), 0);
	}
	assert_int_equal(rest_submit(r, &req), -1);
	assert_int_equal(rest_pending(r), REST_QUEUE_MAX);
	wait_seen(1, 5.0);
	sleep_s(0.1);
	/* one route: its requests go one at a time, in order */
	assert_int_equal(seen_count(), 1);
	t = now_s();
	rest_stop(r, 100);
	assert_true(now_s() - t < 1.0);
	server_stop();
}

/* rest_stop waits for the requests in flight up to the grace period, and
 * no longer than they need. */
static void test_stop(void **state)
{
	struct rule rules[] = {
		{ .method = "GET",
		  .path = "/slow",
		  .times = 1,
		  .status = 200,
		  .body = "{}",
		  .delay_ms = 150 },
	};
	char path[64];
	struct rest *r;
	double t, el;

	(void)state;
	server_start(NULL, 0, 1);
	r = start_rest(S.port, 0, 0, 0);
	for (int i = 0; i < 8; i++) {
		snprintf(path, sizeof path, "/channels/%d/messages", 20 + i);
		submit(r, REST_POST, path, "{}", (uint64_t)i + 1, 0);
	}
	wait_seen(8, 5.0);
	t = now_s();
	rest_stop(r, 200);
	el = now_s() - t;
	assert_true(el >= 0.15 && el < 1.0);
	server_stop();

	server_start(rules, 1, 0);
	r = start_rest(S.port, 0, 0, 0);
	submit(r, REST_GET, "/slow", NULL, 1, 0);
	wait_seen(1, 5.0);
	t = now_s();
	rest_stop(r, 5000);
	el = now_s() - t;
	assert_true(el < 1.5);
	server_stop();
	assert_int_equal(S.answered, 1);
}

/* ---- multipart/form-data ---- */

#define MAX_PARTS 12

/* One part of a multipart/form-data body, as received. */
struct part {
	char name[64];
	char filename[160];
	int has_filename;
	char ctype[128];
	const char *data; /* into the seen body */
	size_t len;
};

/* The first occurrence of the n bytes at needle in [p, p + len), or NULL. */
static const char *find_bytes(const char *p, size_t len, const char *needle, size_t n)
{
	for (size_t i = 0; n <= len && i <= len - n; i++)
		if (memcmp(p + i, needle, n) == 0)
			return p + i;
	return NULL;
}

/* Copies the quoted parameter `name` ("name=\"...\"") of a Content-Disposition
 * value into out. Returns 1, or 0 when it is missing. */
static int disposition_param(const char *v, const char *name, char *out, size_t cap)
{
	const char *p = v;
	size_t nl = strlen(name);

	while ((p = strchr(p, ';')) != NULL) {
		p++;
		while (*p == ' ')
			p++;
		if (strncmp(p, name, nl) == 0 && p[nl] == '=' && p[nl + 1] == '"') {
			const char *e = strchr(p + nl + 2, '"');

			assert_non_null(e);
			snprintf(out, cap, "%.*s", (int)(e - p - nl - 2), p + nl + 2);
			return 1;
		}
	}
	return 0;
}

/* The boundary named by a request's Content-Type, which must be
 * multipart/form-data. */
static void form_boundary(const struct seen *s, char *out, size_t cap)
{
	static const char want[] = "multipart/form-data; boundary=";
	char v[256];

	assert_true(header_value(s, "Content-Type", v, sizeof v));
	assert_int_equal(strncmp(v, want, sizeof want - 1), 0);
	assert_true(strlen(v + sizeof want - 1) < cap);
	memcpy(out, v + sizeof want - 1, strlen(v + sizeof want - 1) + 1);
	assert_true(strlen(out) >= 1 && strlen(out) <= 70);
}

/* Splits the body of a seen request (whole: at most BODY_KEEP bytes) into
 * its parts: "--boundary" CRLF, part headers, CRLF CRLF, data, CRLF
 * "--boundary", and "--" after the last. Fails the test on anything else.
 * Returns the number of parts. */
static int form_parts(const struct seen *s, struct part *parts, int max)
{
	char boundary[128], delim[140];
	const char *p = s->body, *end = s->body + s->body_len;
	size_t dl;
	int n = 0;

	assert_true(s->body_len <= BODY_KEEP);
	form_boundary(s, boundary, sizeof boundary);
	dl = (size_t)snprintf(delim, sizeof delim, "\r\n--%s", boundary);
	/* the first delimiter opens the body: no preamble */
	assert_true((size_t)(end - p) > dl - 2);
	assert_memory_equal(p, delim + 2, dl - 2);
	p += dl - 2;
	for (;;) {
		struct part *pt;
		const char *hend, *line, *next;

		if (end - p >= 2 && memcmp(p, "--", 2) == 0) {
			p += 2;
			break;
		}
		assert_true(end - p >= 2 && memcmp(p, "\r\n", 2) == 0);
		p += 2;
		assert_true(n < max);
		pt = &parts[n++];
		memset(pt, 0, sizeof *pt);
		hend = find_bytes(p, (size_t)(end - p), "\r\n\r\n", 4);
		assert_non_null(hend);
		for (line = p; line < hend + 2; line = next + 2) {
			char h[512];

			next = find_bytes(line, (size_t)(hend + 2 - line), "\r\n", 2);
			assert_non_null(next);
			assert_true(next - line < (long)sizeof h);
			snprintf(h, sizeof h, "%.*s", (int)(next - line), line);
			if (strncasecmp(h, "Content-Disposition: form-data;", 31) == 0) {
				assert_true(
				    disposition_param(h, "name", pt->name, sizeof pt->name));
				pt->has_filename = disposition_param(h, "filename", pt->filename,
				                                     sizeof pt->filename);
			} else if (strncasecmp(h, "Content-Type: ", 14) == 0) {
				assert_true(strlen(h + 14) < sizeof pt->ctype);
				memcpy(pt->ctype, h + 14, strlen(h + 14) + 1);
			} else {
				fail_msg("unexpected part header: %s", h);
			}
		}
		assert_true(pt->name[0] != '\0');
		pt->data = hend + 4;
		next = find_bytes(pt->data, (size_t)(end - pt->data), delim, dl);
		assert_non_null(next);
		pt->len = (size_t)(next - pt->data);
		p = next + dl;
	}
	/* the close delimiter, then at most a CRLF */
	assert_true(p == end || (end - p == 2 && memcmp(p, "\r\n", 2) == 0));
	return n;
}

/* Bytes that stand for a picture: the PNG signature, then every byte value
 * (NUL, CR, LF and '-' included) in a pattern seeded by `seed`. */
static void fake_png(unsigned char *out, size_t len, unsigned seed)
{
	static const unsigned char sig[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
	uint64_t x = seed * 0x9e3779b97f4a7c15ULL + 1;

	for (size_t i = 0; i < len; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		out[i] = i < sizeof sig ? sig[i]
		                        : (i % 64 < 8 ? "\r\n--\r\n\0-"[i % 8] : (unsigned char)x);
	}
}

/* POST with a JSON body and a picture: the body goes as the part
 * "payload_json" (application/json), the picture as "files[0]" with its
 * filename, type and exact bytes; the headers are those of any request,
 * with libcurl's multipart type and no Expect. */
static void test_multipart_post(void **state)
{
	static const char body[] =
	    "{\"content\":\"the map\",\"embeds\":[{\"title\":\"Move 3\",\"image\":{\"url\":"
	    "\"attachment://"
	    "board.png\"}}],\"attachments\":[{\"id\":0,\"filename\":\"board.png\"}]}";
	unsigned char png[1500];
	struct rest_file file = { .name = "files[0]",
		                  .filename = "board.png",
		                  .content_type = "image/png" };
	struct rest_request req = {
		.method = REST_POST,
		.path = "/channels/1/messages",
		.body = body,
		.body_len = sizeof body - 1,
		.files = &file,
		.nfiles = 1,
		.tag = 1,
	};
	struct rest_response resp[1];
	struct part parts[MAX_PARTS];
	char v[256], *copy;
	cJSON *json, *att;
	struct rest *r;
	int i;

	(void)state;
	fake_png(png, sizeof png, 1);
	file.data = png;
	file.len = sizeof png;
	server_start(NULL, 0, 0);
	r = start_rest(S.port, 0, 0, 0);
	/* everything is copied at submit: what the caller keeps may change */
	copy = malloc(sizeof body);
	assert_non_null(copy);
	memcpy(copy, body, sizeof body);
	req.body = copy;
	assert_int_equal(rest_submit(r, &req), 0);
	memset(copy, 'x', sizeof body - 1);
	free(copy);
	file.filename = "changed.png";
	memset(png + 8, 0, 64);
	take(r, resp, 1, 5.0);
	fake_png(png, sizeof png, 1);

	assert_int_equal(seen_count(), 1);
	i = find_seen("POST", "/channels/1/messages", NULL, 0);
	assert_true(i >= 0);
	assert_true(header_value(&S.seen[i], "Authorization", v, sizeof v));
	assert_string_equal(v, "Bot " TOKEN);
	assert_true(header_value(&S.seen[i], "User-Agent", v, sizeof v));
	assert_string_equal(v, UA);
	assert_false(header_value(&S.seen[i], "Expect", v, sizeof v));
	assert_true(header_value(&S.seen[i], "Content-Length", v, sizeof v));
	assert_int_equal(strtoul(v, NULL, 10), S.seen[i].body_len);

	assert_int_equal(form_parts(&S.seen[i], parts, MAX_PARTS), 2);
	assert_string_equal(parts[0].name, "payload_json");
	assert_false(parts[0].has_filename);
	assert_string_equal(parts[0].ctype, "application/json");
	assert_int_equal(parts[0].len, sizeof body - 1);
	assert_memory_equal(parts[0].data, body, sizeof body - 1);
	json = cJSON_ParseWithLength(parts[0].data, parts[0].len);
	assert_non_null(json);
	att = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(json, "attachments"), 0);
	assert_int_equal(cJSON_GetObjectItemCaseSensitive(att, "id")->valueint, 0);
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(att, "filename")->valuestring,
	                    "board.png");
	assert_string_equal(
	    cJSON_GetObjectItemCaseSensitive(
	        cJSON_GetObjectItemCaseSensitive(
	            cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(json, "embeds"), 0),
	            "image"),
	        "url")
	        ->valuestring,
	    "attachment://board.png");
	cJSON_Delete(json);

	assert_string_equal(parts[1].name, "files[0]");
	assert_true(parts[1].has_filename);
	assert_string_equal(parts[1].filename, "board.png");
	assert_string_equal(parts[1].ctype, "image/png");
	assert_int_equal(parts[1].len, sizeof png);
	assert_memory_equal(parts[1].data, png, sizeof png);

	assert_int_equal(resp[0].status, 200);
	assert_int_equal(resp[0].attempts, 1);
	assert_string_equal(resp[0].body, "{\"ok\":true}");
	free_all(resp, 1);
	rest_stop(r, 1000);
	server_stop();
}

/* PATCH (a channel message and an interaction's original response) with
 * two files, in the order given, and a POST with files only (no body, so no
 * payload_json); a file without a type goes as application/octet-stream. */
static void test_multipart_patch(void **state)
{
	static const char body[] = "{\"attachments\":[{\"id\":\"0\"},{\"id\":\"1\"}]}";
	unsigned char a[700], b[90];
	struct rest_file files[2] = {
		{ .name = "files[0]", .filename = "board.png", .content_type = "image/png" },
		{ .name = "files[1]", .filename = "legend-2.png", .content_type = "image/png" },
	};
	struct rest_file raw = {
		.name = "files[0]", .filename = "moves.log", .data = "m", .len = 1
	};
	static const char *const paths[2] = { "/channels/1/messages/42",
		                              "/webhooks/1000/dG9rZW4/messages/@original" };
	struct rest_request req = {
		.method = REST_PATCH,
		.body = body,
		.body_len = sizeof body - 1,
		.files = files,
		.nfiles = 2,
	};
	struct rest_response resp[3];
	struct part parts[MAX_PARTS];
	struct rest *r;
	int i;

	(void)state;
	fake_png(a, sizeof a, 2);
	fake_png(b, sizeof b, 3);
	files[0].data = a;
	files[0].len = sizeof a;
	files[1].data = b;
	files[1].len = sizeof b;
	server_start(NULL, 0, 0);
	r = start_rest(S.port, 0, 0, 0);
	for (int k = 0; k < 2; k++) {
		req.path = paths[k];
		req.tag = (uint64_t)k + 1;
		assert_int_equal(rest_submit(r, &req), 0);
	}
	req = (struct rest_request){ .method = REST_POST,
		                     .path = "/channels/2/messages",
		                     .files = &raw,
		                     .nfiles = 1,
		                     .tag = 3 };
	assert_int_equal(rest_submit(r, &req), 0);
	take(r, resp, 3, 5.0);
	assert_int_equal(seen_count(), 3);

	for (int k = 0; k < 2; k++) {
		i = find_seen("PATCH", paths[k], NULL, 0);
		assert_true(i >= 0);
		assert_int_equal(form_parts(&S.seen[i], parts, MAX_PARTS), 3);
		assert_string_equal(parts[0].name, "payload_json");
		assert_string_equal(parts[0].ctype, "application/json");
		assert_int_equal(parts[0].len, sizeof body - 1);
		assert_memory_equal(parts[0].data, body, sizeof body - 1);
		assert_string_equal(parts[1].name, "files[0]");
		assert_string_equal(parts[1].filename, "board.png");
		assert_string_equal(parts[1].ctype, "image/png");
		assert_int_equal(parts[1].len, sizeof a);
		assert_memory_equal(parts[1].data, a, sizeof a);
		assert_string_equal(parts[2].name, "files[1]");
		assert_string_equal(parts[2].filename, "legend-2.png");
		assert_string_equal(parts[2].ctype, "image/png");
		assert_int_equal(parts[2].len, sizeof b);
		assert_memory_equal(parts[2].data, b, sizeof b);
		assert_int_equal(resp[k].status, 200);
	}
	i = find_seen("POST", "/channels/2/messages", NULL, 0);
	assert_true(i >= 0);
	assert_int_equal(form_parts(&S.seen[i], parts, MAX_PARTS), 1);
	assert_string_equal(parts[0].name, "files[0]");
	assert_string_equal(parts[0].filename, "moves.log");
	assert_string_equal(parts[0].ctype, "application/octet-stream");
	assert_int_equal(parts[0].len, 1);
	assert_memory_equal(parts[0].data, "m", 1);
	assert_int_equal(resp[2].status, 200);
	free_all(resp, 3);
	rest_stop(r, 1000);
	server_stop();
}

/* A 500, then a 200: the retry sends the very same bytes (boundary and
 * Content-Type included), also for a file of 300 KiB that goes in many
 * reads; the body is the kept head (payload_json and the file part's
 * headers), the file, and the close delimiter. */
static void test_multipart_retry_same_bytes(void **state)
{
	static const char body[] = "{\"type\":4,\"data\":{\"embeds\":[{\"image\":{\"url\":"
	                           "\"attachment://board.png\"}}],\"attachments\":[{\"id\":0,"
	                           "\"filename\":\"board.png\"}]}}";
	static const char path[] = "/interactions/77/aW50ZXJhY3Rpb24/callback";
	size_t len = 300 * 1024 + 7;
	unsigned char *png = malloc(len);
	struct rest_file file = {
		.name = "files[0]", .filename = "board.png", .content_type = "image/png", .len = len
	};
	struct rest_request req = {
		.method = REST_POST,
		.path = path,
		.body = body,
		.body_len = sizeof body - 1,
		.files = &file,
		.nfiles = 1,
		.exempt_global = 1,
		.tag = 1,
	};
	struct rule rules[] = {
		{ .method = "POST",
		  .path = path,
		  .times = 1,
		  .status = 500,
		  .body = "{\"message\": \"500: Internal Server Error\", \"code\": 0}" },
	};
	struct rest_response resp[1];
	char ct[2][256], boundary[128], tail[160];
	const char *head_end;
	size_t head_len, tail_len;
	uint64_t want;
	struct rest *r;
	int s0, s1;

	(void)state;
	assert_non_null(png);
	fake_png(png, len, 4);
	file.data = png;
	server_start(rules, 1, 0);
	r = start_rest(S.port, 2, 0, 0);
	assert_int_equal(rest_submit(r, &req), 0);
	take(r, resp, 1, 5.0);
	assert_int_equal(resp[0].status, 200);
	assert_int_equal(resp[0].attempts, 2);
	assert_int_equal(seen_count(), 2);
	s0 = find_seen("POST", path, NULL, 0);
	s1 = find_seen("POST", path, NULL, 1);
	assert_true(s0 >= 0 && s1 > s0);

	assert_true(header_value(&S.seen[s0], "Content-Type", ct[0], sizeof ct[0]));
	assert_true(header_value(&S.seen[s1], "Content-Type", ct[1], sizeof ct[1]));
	assert_string_equal(ct[0], ct[1]);
	assert_int_equal(S.seen[s0].body_len, S.seen[s1].body_len);
	assert_true(S.seen[s0].body_hash == S.seen[s1].body_hash);
	assert_memory_equal(S.seen[s0].body, S.seen[s1].body, BODY_KEEP);

	/* the whole body, rebuilt: the head as received, the file, the end */
	form_boundary(&S.seen[s0], boundary, sizeof boundary);
	head_end = find_bytes(S.seen[s0].body, BODY_KEEP, "filename=\"board.png\"\r\n", 22);
	assert_non_null(head_end);
	head_end =
	    find_bytes(head_end, BODY_KEEP - (size_t)(head_end - S.seen[s0].body), "\r\n\r\n", 4);
	assert_non_null(head_end);
	head_len = (size_t)(head_end + 4 - S.seen[s0].body);
	assert_non_null(find_bytes(S.seen[s0].body, head_len, body, sizeof body - 1));
	assert_non_null(find_bytes(S.seen[s0].body, head_len, "Content-Type: image/png\r\n", 25));
	assert_memory_equal(S.seen[s0].body + head_len, png, BODY_KEEP - head_len);
	tail_len = (size_t)snprintf(tail, sizeof tail, "\r\n--%s--\r\n", boundary);
	assert_int_equal(S.seen[s0].body_len, head_len + len + tail_len);
	want = fnv1a(S.seen[s0].body, head_len, FNV_FIRST);
	want = fnv1a(png, len, want);
	want = fnv1a(tail, tail_len, want);
	assert_true(S.seen[s0].body_hash == want);
	free_all(resp, 1);
	rest_stop(r, 1000);
	server_stop();
	free(png);
}

/* Files that break the rules are refused at submit, nothing queued: more
 * than REST_MAX_FILES, the body and the files over REST_MAX_REQUEST, a
 * name used twice or not a form field, a filename that is empty, too long,
 * hidden or would need quoting, an empty file, a type with a line break, a
 * method without a body, a body that is not JSON. At the limits they pass. */
static void test_multipart_refusals(void **state)
{
	unsigned char *big = malloc(REST_MAX_REQUEST + 1);
	struct rest_file files[REST_MAX_FILES + 1];
	char names[REST_MAX_FILES + 1][16], longname[REST_FILENAME_MAX + 2];
	struct rest_request req;
	struct rest *r;
	static const struct {
		const char *what;
		const char *name, *filename, *content_type;
	} bad[] = {
		{ "the JSON's own part name", "payload_json", "a.png", "image/png" },
		{ "an empty name", "", "a.png", "image/png" },
		{ "a name that needs quoting", "files[\"0\"]", "a.png", "image/png" },
		{ "a long name", "files[000000000000000000000000000]", "a.png", "image/png" },
		{ "no name", NULL, "a.png", "image/png" },
		{ "no filename", "files[0]", NULL, "image/png" },
		{ "an empty filename", "files[0]", "", "image/png" },
		{ "a quote in the filename", "files[0]", "a\".png", "image/png" },
		{ "a path", "files[0]", "../a.png", "image/png" },
		{ "a hidden file", "files[0]", ".png", "image/png" },
		{ "a space", "files[0]", "my map.png", "image/png" },
		{ "a line break in the type", "files[0]", "a.png", "image/png\r\nX-Injected: 1" },
		{ "an empty type", "files[0]", "a.png", "" },
	};

	(void)state;
	assert_non_null(big);
	memset(big, 'p', REST_MAX_REQUEST + 1);
	memset(longname, 'a', sizeof longname);
	memcpy(longname + REST_FILENAME_MAX - 4, ".png", 5);
	assert_int_equal(strlen(longname), REST_FILENAME_MAX);
	for (int i = 0; i <= REST_MAX_FILES; i++) {
		snprintf(names[i], sizeof names[i], "files[%d]", i);
		files[i] = (struct rest_file){ .name = names[i],
			                       .filename = "board.png",
			                       .content_type = "image/png",
			                       .data = big,
			                       .len = 10 };
	}
	r = start_rest(closed_port(), 0, 0, 0);
	req = (struct rest_request){ .method = REST_POST,
		                     .path = "/channels/1/messages",
		                     .body = "{}",
		                     .body_len = 2,
		                     .files = files,
		                     .nfiles = REST_MAX_FILES + 1 };
	assert_int_equal(rest_submit(r, &req), -1);
	req.nfiles = -1;
	assert_int_equal(rest_submit(r, &req), -1);
	req.nfiles = 1;
	req.files = NULL;
	assert_int_equal(rest_submit(r, &req), -1);
	req.files = files;
	files[0].len = REST_MAX_REQUEST - 2 + 1;
	assert_int_equal(rest_submit(r, &req), -1);
	files[0].len = 10;
	files[1].len = REST_MAX_REQUEST - 2 - 10 + 1;
	req.nfiles = 2;
	assert_int_equal(rest_submit(r, &req), -1);
	files[1].len = 10;
	files[1].name = "files[0]";
	assert_int_equal(rest_submit(r, &req), -1);
	files[1].name = names[1];
	files[1].len = 0;
	assert_int_equal(rest_submit(r, &req), -1);
	files[1].len = 10;
	files[1].data = NULL;
	assert_int_equal(rest_submit(r, &req), -1);
	files[1].data = big;
	files[1].filename = longname;
	assert_int_equal(rest_submit(r, &req), 0); /* REST_FILENAME_MAX: fits */
	longname[REST_FILENAME_MAX - 4] = 'x';
	longname[REST_FILENAME_MAX] = 'g';
	longname[REST_FILENAME_MAX + 1] = '\0';
	assert_int_equal(rest_submit(r, &req), -1);
	files[1].filename = "board.png";
	for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
		files[1].name = bad[k].name;
		files[1].filename = bad[k].filename;
		files[1].content_type = bad[k].content_type;
		if (rest_submit(r, &req) != -1)
			fail_msg("accepted: %s", bad[k].what);
	}
	files[1].name = names[1];
	files[1].filename = "board.png";
	files[1].content_type = "image/png";
	req.method = REST_GET;
	req.body = NULL;
	req.body_len = 0;
	assert_int_equal(rest_submit(r, &req), -1);
	req.method = REST_DELETE;
	assert_int_equal(rest_submit(r, &req), -1);
	req.method = REST_PATCH;
	req.body = "content=x";
	req.body_len = 9;
	req.content_type = "application/x-www-form-urlencoded";
	assert_int_equal(rest_submit(r, &req), -1);
	assert_int_equal(rest_pending(r), 1);

	/* at the limits: REST_MAX_FILES files, REST_MAX_REQUEST bytes in all */
	req.content_type = "application/json";
	req.body = "{}";
	req.body_len = 2;
	req.nfiles = REST_MAX_FILES;
	files[REST_MAX_FILES - 1].len = REST_MAX_REQUEST - 2 - 10 * (REST_MAX_FILES - 1);
	assert_int_equal(rest_submit(r, &req), 0);
	assert_int_equal(rest_pending(r), 2);
	rest_stop(r, 0);
	free(big);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_requests_as_received),
		cmocka_unit_test(test_429_holds_its_bucket),
		cmocka_unit_test(test_global_429_holds_all),
		cmocka_unit_test(test_remaining_zero_holds_its_bucket),
		cmocka_unit_test(test_global_rate),
		cmocka_unit_test(test_global_share),
		cmocka_unit_test(test_global_unsent),
		cmocka_unit_test(test_global_hold_and_take),
		cmocka_unit_test(test_5xx_retried),
		cmocka_unit_test(test_transport_errors_retried),
		cmocka_unit_test(test_4xx_not_retried),
		cmocka_unit_test(test_wake_once_per_drain),
		cmocka_unit_test(test_response_cap),
		cmocka_unit_test(test_submit_refusals),
		cmocka_unit_test(test_queue_bound),
		cmocka_unit_test(test_stop),
		cmocka_unit_test(test_multipart_post),
		cmocka_unit_test(test_multipart_patch),
		cmocka_unit_test(test_multipart_retry_same_bytes),
		cmocka_unit_test(test_multipart_refusals),
	};
	struct sigaction sa = { .sa_handler = SIG_IGN };

	sigaction(SIGPIPE, &sa, NULL);
	setenv("NO_PROXY", "*", 1);
	setenv("no_proxy", "*", 1);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
