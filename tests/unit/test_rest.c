/* rest: the HTTP API client against a small HTTP/1.1 server run by the test
 * itself on 127.0.0.1. The server answers from a script of canned responses
 * and records every request it receives (method, path, headers, body, and
 * the CLOCK_MONOTONIC time it arrived), so the tests assert on what really
 * went over the wire and when. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

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
	char head[HEAD_CAP]; /* request line and header lines */
	char body[BODY_KEEP + 1];
	size_t body_len;
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
	while (body_len < clen) {
		char scratch[4096];
		size_t m = 0;
		ssize_t r = recv_some(c, scratch, sizeof scratch, &m);

		if (r <= 0)
			break;
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

static void server_start(const struct rule *rules, int nrules, int stall_all)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
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
	assert_true(wake_calls() >= 4);

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_requests_as_received),
		cmocka_unit_test(test_429_holds_its_bucket),
		cmocka_unit_test(test_global_429_holds_all),
		cmocka_unit_test(test_remaining_zero_holds_its_bucket),
		cmocka_unit_test(test_global_rate),
		cmocka_unit_test(test_5xx_retried),
		cmocka_unit_test(test_transport_errors_retried),
		cmocka_unit_test(test_4xx_not_retried),
		cmocka_unit_test(test_response_cap),
		cmocka_unit_test(test_submit_refusals),
		cmocka_unit_test(test_queue_bound),
		cmocka_unit_test(test_stop),
	};
	struct sigaction sa = { .sa_handler = SIG_IGN };

	sigaction(SIGPIPE, &sa, NULL);
	setenv("NO_PROXY", "*", 1);
	setenv("no_proxy", "*", 1);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
