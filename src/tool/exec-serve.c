/* SPDX-License-Identifier: MIT */
/*
 * `prealloc exec` while the program runs (src/tool/exec-serve.h).  This
 * process stays single-threaded, so it can fork() clean workers; it waits
 * on nothing but poll().  A call is admitted here (its arguments, the
 * rights its thread has) and handed to an idle worker that took on exactly
 * those rights, else to a new one; a worker holds what answers the call,
 * so the call ends the same way if `prealloc exec` itself is killed.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "exec-listen.h"
#include "exec-serve.h"
#include "exec-supervise.h"

#define CONNS_MAX 256			/* connections accepted and not read yet */
#define IDLE_MAX 4			/* idle workers kept for one set of rights */

static void record(struct exec_server *s, const struct exec_call *c, const struct exec_result *r)
{
	exec_tally_count(&s->tally, c, r);
	exec_log_call(s->log_fd, c, r);
}

static void release(struct exec_call *c)
{
	if (c->fd >= 0)
		close(c->fd);
	if (c->conn >= 0)
		close(c->conn);
	c->fd = c->conn = -1;
}

/* A call that goes no further than here: counted, answered (made as the
 * program made it). */
static void pass(struct exec_server *s, struct exec_call *c, enum exec_outcome out,
		 enum exec_why why)
{
	struct exec_result r = { .size = sizeof(r), .outcome = out, .why = why };

	exec_call_path(c, r.path, sizeof(r.path));
	record(s, c, &r);
	exec_call_answer(c, false);
	release(c);
}

/* An idle worker with rights @cr, else a new one; NULL when none can be had. */
static struct exec_worker *worker_for(struct exec_server *s, const struct exec_creds *cr)
{
	struct exec_worker *w;

	for (size_t i = 0; i < s->nworkers; i++)
		if (!s->workers[i].busy && !s->workers[i].ending &&
		    exec_creds_equal(&s->workers[i].creds, cr))
			return &s->workers[i];
	w = realloc(s->workers, (s->nworkers + 1) * sizeof(*w));
	if (!w)
		return NULL;
	s->workers = w;
	w += s->nworkers;
	if (exec_worker_start(w, s->cfg, cr, s->listener))
		return NULL;
	s->nworkers++;
	return w;
}

/* Beyond IDLE_MAX idle workers of one set of rights, @w ends. */
static void trim(struct exec_server *s, struct exec_worker *w)
{
	size_t idle = 0;

	for (size_t i = 0; i < s->nworkers; i++)
		idle += !s->workers[i].busy && !s->workers[i].ending &&
			exec_creds_equal(&s->workers[i].creds, &w->creds);
	if (idle > IDLE_MAX) {
		close(w->sock);
		w->sock = -1;
		w->ending = true;
	}
}

static void on_worker(struct exec_server *s, struct exec_worker *w)
{
	struct exec_result r;
	enum exec_heard_worker h;
	int watch;

	while ((h = exec_worker_read(w, &r, &watch)) != EXEC_WORKER_NOTHING) {
		if (h == EXEC_WORKER_RESULT) {
			record(s, &w->call, &r);
			if (watch >= 0)
				exec_watch_add(&s->watch, &s->tally, &w->call, &r, watch);
			continue;
		}
		release(&w->call);
		trim(s, w);
	}
}

/* Is @c's file of a pattern whose conversions the program threw away? */
static bool speculative(struct exec_server *s, const struct exec_call *c)
{
	char path[PATH_MAX];

	exec_call_path(c, path, sizeof(path));
	return !s->cfg->dry_run && exec_watch_speculative(&s->watch, &s->tally, path);
}

/* Before a call is taken: what the workers reported of earlier calls (a
 * worker reports before it answers, so before the program could make this
 * one) and the unlinks inotify saw, counted. */
static void catch_up(struct exec_server *s)
{
	for (size_t i = 0; i < s->nworkers; i++)
		if (s->workers[i].sock >= 0)
			on_worker(s, &s->workers[i]);
	exec_watch_events(&s->watch, &s->tally);
}

static void take(struct exec_server *s, struct exec_call *c)
{
	struct exec_creds cr;
	enum exec_why why;
	struct exec_worker *w;

	catch_up(s);
	why = exec_admit(s->cfg, c, &cr);
	if (!why && speculative(s, c))
		why = EXEC_WHY_SPECULATIVE;
	if (why) {
		pass(s, c, why == EXEC_WHY_GONE ? EXEC_ABANDONED : EXEC_PASSED, why);
		return;
	}
	w = worker_for(s, &cr);
	if (!w || exec_worker_give(w, c)) {
		pass(s, c, EXEC_PASSED, EXEC_WHY_NO_PROCESS);
		return;
	}
	/* The worker has its own copy; the connection stays, to answer the
	 * call should the worker die. */
	if (c->fd >= 0)
		close(c->fd);
	w->call.fd = -1;
}

/* Worker @w ended: a call it did not report was interrupted, and one it
 * did not answer is answered here. */
static void worker_ended(struct exec_server *s, struct exec_worker *w)
{
	if (w->sock >= 0)
		on_worker(s, w);
	if (w->busy && !w->reported) {
		struct exec_result r = { .size = sizeof(r), .outcome = EXEC_INTERRUPTED };

		exec_call_path(&w->call, r.path, sizeof(r.path));
		record(s, &w->call, &r);
	}
	if (w->busy)
		exec_call_answer(&w->call, w->converted);
	release(&w->call);
	if (w->sock >= 0)
		close(w->sock);
	*w = s->workers[--s->nworkers];
}

static void reap(struct exec_server *s, bool *ended)
{
	pid_t pid;
	int st;

	while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
		if (pid == s->program) {
			s->status = st;
			*ended = true;
		}
		for (size_t i = 0; i < s->nworkers; i++)
			if (s->workers[i].pid == pid) {
				worker_ended(s, &s->workers[i]);
				break;
			}
	}
}

/* The signals: a child to reap, or one to pass on to the program. */
static void on_signals(struct exec_server *s, bool *ended)
{
	struct signalfd_siginfo si;

	while (read(s->sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		if (si.ssi_signo == SIGCHLD)
			reap(s, ended);
		/* Not once it is reaped (its pid may be another's), nor what the
		 * terminal sent the whole process group already. */
		else if (!*ended && si.ssi_code != SI_KERNEL)
			kill(s->program, (int)si.ssi_signo);
	}
}

static void on_listener(struct exec_server *s, short revents)
{
	struct exec_call c;
	int ret = 0;

	if (revents & POLLIN)
		ret = exec_seccomp_take(s->listener, &c);
	if (ret == 1)
		take(s, &c);
	/* No process of the program uses the filter any more. */
	if (ret < 0 || (!(revents & POLLIN) && (revents & (POLLHUP | POLLERR | POLLNVAL)))) {
		close(s->listener);
		s->listener = -1;
	}
}

static void on_sock(struct exec_server *s)
{
	int conn = exec_listen_accept(s->sock), *c;

	if (conn < 0)
		return;
	if (s->nconns == CONNS_MAX || !(c = realloc(s->conns, (s->nconns + 1) * sizeof(*c)))) {
		close(conn);	/* its call is made as it was */
		return;
	}
	s->conns = c;
	s->conns[s->nconns++] = conn;
}

static void on_conn(struct exec_server *s, size_t i)
{
	struct exec_call c;
	int conn = s->conns[i];

	switch (exec_listen_read(conn, s->cfg->min, &c)) {
	case EXEC_HEARD_NOTHING:
		return;
	case EXEC_HEARD_HELLO:
		s->tally.loaded++;
		close(conn);
		break;
	case EXEC_HEARD_CALL:
		take(s, &c);
		break;
	case EXEC_HEARD_BAD:
		close(conn);
		break;
	}
	s->conns[i] = s->conns[--s->nconns];
}

static bool busy(const struct exec_server *s)
{
	for (size_t i = 0; i < s->nworkers; i++)
		if (s->workers[i].busy)
			return true;
	return false;
}

enum { P_SIGNALS, P_LISTENER, P_SOCK, P_NOTIFY, P_WATCH, P_FIXED };

/* One round: wait, then serve what is ready.  False when poll() fails. */
static bool serve_once(struct exec_server *s, struct pollfd *p, bool *ended)
{
	size_t nw = s->nworkers, nc = s->nconns;

	p[P_SIGNALS] = (struct pollfd){ .fd = s->sfd, .events = POLLIN };
	p[P_LISTENER] = (struct pollfd){ .fd = s->listener, .events = POLLIN };
	p[P_SOCK] = (struct pollfd){ .fd = s->sock, .events = POLLIN };
	p[P_NOTIFY] = (struct pollfd){ .fd = s->notify->sock, .events = POLLIN };
	p[P_WATCH] = (struct pollfd){ .fd = exec_watch_fd(&s->watch), .events = POLLIN };
	for (size_t i = 0; i < nw; i++)
		p[P_FIXED + i] = (struct pollfd){ .fd = s->workers[i].sock, .events = POLLIN };
	for (size_t i = 0; i < nc; i++)
		p[P_FIXED + nw + i] = (struct pollfd){ .fd = s->conns[i], .events = POLLIN };
	if (poll(p, P_FIXED + nw + nc, exec_watch_due_ms(&s->watch)) < 0)
		return errno == EINTR || errno == EAGAIN;
	if (p[P_WATCH].revents & POLLIN)
		exec_watch_events(&s->watch, &s->tally);
	exec_watch_tick(&s->watch, &s->tally);
	/* A call not taken yet is one a signal can still interrupt. */
	if (s->listener >= 0 && p[P_LISTENER].revents)
		on_listener(s, p[P_LISTENER].revents);
	for (size_t i = 0; i < nw; i++)
		if (p[P_FIXED + i].revents & POLLIN)
			on_worker(s, &s->workers[i]);
	if (p[P_SIGNALS].revents)
		on_signals(s, ended);	/* may end workers: after their reports */
	if (p[P_SOCK].revents & POLLIN)
		on_sock(s);
	if (p[P_NOTIFY].revents & POLLIN)
		exec_notify_relay(s->notify, s->program);
	/* From the last: on_conn() moves the last one into a read slot. */
	for (size_t i = nc; i-- > 0;)
		if (p[P_FIXED + nw + i].revents)
			on_conn(s, i);
	return true;
}

void exec_serve(struct exec_server *s)
{
	bool ended = false;
	struct pollfd *p = NULL;

	while (!ended || s->listener >= 0 || busy(s)) {
		struct pollfd *q = realloc(p, (P_FIXED + s->nworkers + CONNS_MAX) * sizeof(*p));

		if (!q || !serve_once(s, (p = q), &ended))
			break;
	}
	free(p);
	for (size_t i = 0; i < s->nconns; i++)
		close(s->conns[i]);
	s->nconns = 0;
	/* The workers end with their sockets. */
	while (s->nworkers) {
		struct exec_worker *w = &s->workers[s->nworkers - 1];

		if (w->sock >= 0)
			close(w->sock);
		w->sock = -1;
		while (waitpid(w->pid, NULL, 0) < 0 && errno == EINTR)
			;
		worker_ended(s, w);
	}
	free(s->workers);
	exec_watch_end(&s->watch, &s->tally);
}
