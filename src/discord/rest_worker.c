/* The HTTP API client: the worker thread (dispatch, retries, the event loop). */
#include "rlyeh/rest.h"

#include <curl/curl.h>
#include <errno.h>
#include <math.h>
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

/* The earliest time the global window lets one more counted request go.
 * A request started but not yet sent may go at any moment, so it takes a
 * place in every window from now on: one more may go a second after the
 * (window - unsent)-th most recent send, and none while that is 0 or
 * less (HUGE_VAL). */
static double global_window_free_at(const struct rest *r)
{
	int cap = r->global_per_second, k = r->window - r->unsent;

	if (k <= 0)
		return HUGE_VAL;
	return r->sent[(r->sent_next - k + cap) % cap] + 1.0;
}

/* Forgets that j, counted by the global window, is still to be sent (it
 * is being sent, or its attempt ended without sending). 1 when it was. */
static int unsent_drop(struct rest *r, struct job *j)
{
	if (!j->unsent)
		return 0;
	j->unsent = 0;
	r->unsent--;
	return 1;
}

void rest_worker_sent(struct rest *r, struct job *j)
{
	if (!unsent_drop(r, j))
		return;
	r->sent[r->sent_next] = rest_mono_now();
	r->sent_next = (r->sent_next + 1) % r->global_per_second;
	if (r->window_waiter)
		r->rescan = 1;
}

static void count_wait(struct rest *r, struct job *j)
{
	if (j->counted_wait)
		return;
	j->counted_wait = 1;
	pthread_mutex_lock(&r->lock);
	r->waits++;
	pthread_mutex_unlock(&r->lock);
}

/* Starts the waiting requests that nothing holds back, oldest first, with
 * at most one in flight per limit so that each route keeps its order. A
 * request that cannot be started is answered with an error. Returns how
 * many milliseconds the worker may sleep before another might go. */
static int dispatch(struct rest *r, double now)
{
	double wake_at = now + POLL_MAX_MS / 1000.0, until;
	struct job *j, *next;

	pthread_mutex_lock(&r->lock);
	r->window = r->share;
	r->global_until = rest_max_d(r->global_until, r->hold_until);
	pthread_mutex_unlock(&r->lock);
	r->scan++;
	r->window_waiter = 0;
	for (j = r->waiting.head; j; j = next) {
		struct limit *l = j->route->limit;

		next = j->next;
		if (l->scan == r->scan)
			continue;
		l->scan = r->scan;
		if (l->inflight > 0)
			continue;
		if (j->not_before > now) {
			wake_at = j->not_before < wake_at ? j->not_before : wake_at;
			continue;
		}
		if (l->has_remaining && now >= l->reset_at)
			l->has_remaining = 0;
		until = l->blocked_until;
		if (l->has_remaining && l->remaining <= 0)
			until = rest_max_d(until, l->reset_at);
		if (!j->exempt_global) {
			double free_at = global_window_free_at(r);
			until = rest_max_d(until, r->global_until);
			until = rest_max_d(until, free_at);
			if (free_at == HUGE_VAL)
				r->window_waiter = 1;
		}
		if (until > now) {
			count_wait(r, j);
			wake_at = until < wake_at ? until : wake_at;
			continue;
		}
		rest_jlist_remove(&r->waiting, j);
		j->attempts++;
		if (!j->exempt_global) {
			j->unsent = 1;
			r->unsent++;
		}
		if (rest_http_start(r, j) != 0) {
			unsent_drop(r, j);
			rest_http_deliver(r, j, 0, "cannot start the request");
			continue;
		}
		j->counted_wait = 0;
		j->charge = l;
		l->inflight++;
		if (l->has_remaining)
			l->remaining--;
		rest_jlist_append(&r->inflight, j);
	}
	if (wake_at <= now)
		return 0;
	return (int)((wake_at - now) * 1000.0) + 1;
}

/* Learns from the headers of j's response: the bucket its route belongs to
 * and what the bucket has left. */
static void learn(struct rest *r, struct job *j, double now)
{
	struct route *rt = j->route;
	const struct reply_headers *h = &j->hdr;
	struct limit *l;

	if (h->bucket[0]) {
		size_t lb = strlen(h->bucket), lm = strlen(rt->major);
		char *key = malloc(2 + lb + 1 + lm + 1);

		if (key) {
			memcpy(key, "h:", 2);
			memcpy(key + 2, h->bucket, lb);
			key[2 + lb] = '|';
			memcpy(key + 3 + lb, rt->major, lm + 1);
			if (strcmp(key, rt->limit->node.key) != 0) {
				l = rest_limits_limit_get(r, key);
				if (l) {
					rt->limit->refs--;
					rt->limit = l;
					l->refs++;
				}
			}
			free(key);
		}
	}
	l = rt->limit;
	if (h->has_remaining && h->has_reset_after) {
		l->has_remaining = 1;
		l->remaining = h->remaining;
		l->reset_at = now + h->reset_after;
	}
}

/* Puts j back at the head of the waiting list (ahead of the later requests
 * of its route), not to start before `not_before`. */
static void requeue(struct rest *r, struct job *j, double not_before)
{
	j->not_before = not_before;
	rest_jlist_prepend(&r->waiting, j);
}

static double backoff(struct rest *r, int attempts)
{
	double d = BACKOFF_FIRST;

	for (int i = 1; i < attempts && d < BACKOFF_LAST; i++)
		d *= 2;
	if (d > BACKOFF_LAST)
		d = BACKOFF_LAST;
	return d * (1.0 + BACKOFF_JITTER * rest_prng_unit(r));
}

/* Settles an attempt of j that libcurl has finished with `rc`: retries it or
 * answers it (drops it when stopping). */
static void finish(struct rest *r, struct job *j, CURLcode rc, int stopping)
{
	double now = rest_mono_now();
	int retry_left;
	long status = 0;

	rest_jlist_remove(&r->inflight, j);
	unsent_drop(r, j);
	j->charge->inflight--;
	j->charge = NULL;
	curl_easy_getinfo(j->easy, CURLINFO_RESPONSE_CODE, &status);
	rest_http_attempt_release(r, j);
	if (stopping) {
		rest_http_drop(r, j, now);
		return;
	}
	retry_left = j->attempts <= r->max_retries;
	if (status > 0)
		learn(r, j, now);
	if (j->too_big) {
		free(j->resp);
		j->resp = NULL;
		rest_http_deliver(r, j, 0, "response body over %u bytes",
		                  (unsigned)REST_MAX_RESPONSE);
	} else if (rc != CURLE_OK) {
		if (retry_left)
			requeue(r, j, now + backoff(r, j->attempts));
		else
			rest_http_deliver(r, j, 0, "%s (%d attempts)", curl_easy_strerror(rc),
			                  j->attempts);
	} else if (status == 429) {
		int has = j->hdr.has_retry_after, global = j->hdr.global;
		double wait = has ? j->hdr.retry_after : RETRY_AFTER_NONE;

		if (j->resp)
			rest_http_parse_429_body(j->resp, j->resp_len, &has, &wait, &global);
		if (!has && j->hdr.has_reset_after)
			wait = j->hdr.reset_after;
		pthread_mutex_lock(&r->lock);
		r->too_many++;
		if (global && (long)(wait * 1000.0) + 1 > r->global_429_ms)
			r->global_429_ms = (long)(wait * 1000.0) + 1;
		pthread_mutex_unlock(&r->lock);
		if (global)
			r->global_until = rest_max_d(r->global_until, now + wait);
		else
			j->route->limit->blocked_until =
			    rest_max_d(j->route->limit->blocked_until, now + wait);
		if (retry_left) {
			count_wait(r, j);
			requeue(r, j, now + wait);
		} else {
			rest_http_deliver(r, j, status, "HTTP 429: rate limited (%d attempts)",
			                  j->attempts);
		}
	} else if (status >= 500) {
		if (retry_left)
			requeue(r, j, now + backoff(r, j->attempts));
		else
			rest_http_deliver(r, j, status, "HTTP %ld (%d attempts)", status,
			                  j->attempts);
	} else if (status >= 200 && status < 300) {
		rest_http_deliver(r, j, status, "%s", "");
	} else {
		rest_http_deliver(r, j, status, "HTTP %ld", status);
	}
}

/* Settles every finished transfer. Returns how many there were. */
static int collect(struct rest *r, int stopping)
{
	CURLMsg *msg;
	int left, n = 0;

	while ((msg = curl_multi_info_read(r->multi, &left))) {
		CURL *e = msg->easy_handle;
		CURLcode rc = msg->data.result;
		char *p = NULL;

		if (msg->msg != CURLMSG_DONE)
			continue;
		curl_easy_getinfo(e, CURLINFO_PRIVATE, &p);
		curl_multi_remove_handle(r->multi, e);
		finish(r, (struct job *)(void *)p, rc, stopping);
		n++;
	}
	return n;
}

/* Moves the submitted requests to the waiting list with their routes
 * resolved; one whose route cannot be allocated is answered with an error. */
static void take_submitted(struct rest *r)
{
	struct jlist fresh = { 0 };
	struct job *j;

	pthread_mutex_lock(&r->lock);
	rest_jlist_splice(&fresh, &r->incoming);
	pthread_mutex_unlock(&r->lock);
	while ((j = fresh.head)) {
		rest_jlist_remove(&fresh, j);
		j->route = rest_limits_route_get(r, j->route_key, j->major);
		if (!j->route) {
			rest_http_deliver(r, j, 0, "out of memory");
			continue;
		}
		j->route->refs++;
		rest_jlist_append(&r->waiting, j);
	}
}

static void drop_waiting(struct rest *r, double now)
{
	struct job *j;

	pthread_mutex_lock(&r->lock);
	rest_jlist_splice(&r->waiting, &r->incoming);
	pthread_mutex_unlock(&r->lock);
	while ((j = r->waiting.head)) {
		rest_jlist_remove(&r->waiting, j);
		rest_http_drop(r, j, now);
	}
}

static int ms_until(double now, double t)
{
	double ms = (t - now) * 1000.0;

	if (ms <= 0)
		return 0;
	return ms > POLL_MAX_MS ? POLL_MAX_MS : (int)ms + 1;
}

/* CURLMOPT_SOCKETFUNCTION: keeps epfd watching socket s for what libcurl
 * asks. */
int rest_worker_on_socket(CURL *e, curl_socket_t s, int what, void *userp, void *socketp)
{
	struct rest *r = userp;
	struct epoll_event ev = { 0 };

	(void)e;
	if (what == CURL_POLL_REMOVE) {
		/* fails harmlessly when libcurl has closed s already */
		epoll_ctl(r->epfd, EPOLL_CTL_DEL, s, NULL);
		return 0;
	}
	ev.events = (what & CURL_POLL_IN ? EPOLLIN : 0u) | (what & CURL_POLL_OUT ? EPOLLOUT : 0u);
	ev.data.fd = s;
	/* socketp (set by curl_multi_assign, dropped by libcurl at REMOVE): s is
	 * in the set already */
	if (socketp && epoll_ctl(r->epfd, EPOLL_CTL_MOD, s, &ev) == 0)
		return 0;
	if (epoll_ctl(r->epfd, EPOLL_CTL_ADD, s, &ev) != 0 &&
	    (errno != EEXIST || epoll_ctl(r->epfd, EPOLL_CTL_MOD, s, &ev) != 0))
		return -1;
	curl_multi_assign(r->multi, s, r);
	return 0;
}

/* CURLMOPT_TIMERFUNCTION: notes when libcurl wants its timeout action. */
int rest_worker_on_timer(CURLM *m, long timeout_ms, void *userp)
{
	struct rest *r = userp;

	(void)m;
	r->curl_due = timeout_ms < 0 ? -1.0 : rest_mono_now() + (double)timeout_ms / 1000.0;
	return 0;
}

/* Runs libcurl's timeout action when it is due. */
static void curl_timers(struct rest *r)
{
	int running;

	if (r->curl_due >= 0 && r->curl_due <= rest_mono_now()) {
		r->curl_due = -1.0;
		curl_multi_socket_action(r->multi, CURL_SOCKET_TIMEOUT, 0, &running);
	}
}

/* Waits up to timeout ms (or until libcurl's timeout action is due) for a
 * socket event or a wake-up, and hands the socket events to libcurl. */
static void wait_events(struct rest *r, int timeout)
{
	struct epoll_event evs[EPOLL_BATCH];
	int n, running;

	if (r->curl_due >= 0) {
		int t = ms_until(rest_mono_now(), r->curl_due);
		if (t < timeout)
			timeout = t;
	}
	n = epoll_wait(r->epfd, evs, EPOLL_BATCH, timeout);
	for (int i = 0; i < n; i++) {
		int fd = evs[i].data.fd, how = 0;

		if (fd == r->evfd) {
			uint64_t count;
			(void)!read(r->evfd, &count, sizeof count);
			continue;
		}
		if (evs[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR))
			how |= CURL_CSELECT_IN;
		if (evs[i].events & (EPOLLOUT | EPOLLHUP | EPOLLERR))
			how |= CURL_CSELECT_OUT;
		curl_multi_socket_action(r->multi, fd, how, &running);
	}
}

void *rest_worker(void *arg)
{
	struct rest *r = arg;
	struct job *j;

	for (;;) {
		double now = rest_mono_now(), deadline;
		int stopping, timeout;

		pthread_mutex_lock(&r->lock);
		stopping = r->stopping;
		deadline = r->stop_deadline;
		pthread_mutex_unlock(&r->lock);
		if (stopping) {
			drop_waiting(r, now);
			if (!r->inflight.head || now >= deadline)
				break;
			timeout = ms_until(now, deadline);
		} else {
			take_submitted(r);
			if (now >= r->next_sweep)
				rest_limits_sweep(r, now);
			timeout = dispatch(r, now);
		}
		curl_timers(r);
		if (collect(r, stopping) > 0 || r->rescan)
			timeout = 0;
		r->rescan = 0;
		wait_events(r, timeout);
	}
	while ((j = r->inflight.head)) {
		rest_jlist_remove(&r->inflight, j);
		curl_multi_remove_handle(r->multi, j->easy);
		unsent_drop(r, j);
		j->charge->inflight--;
		rest_http_drop(r, j, rest_mono_now());
	}
	return NULL;
}
