/* SPDX-License-Identifier: MIT */
/* Refusals learnt once per process (src/exec/refusal.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "src/exec/refusal.h"

#define KNOWN 1ull

/* Is the answer known in this process?  *@err: 0 (usable) or -errno. */
static bool refusal_get(const struct pa_refusal *r, int *err)
{
	uint64_t w = __atomic_load_n(&r->word, __ATOMIC_ACQUIRE);

	if (!(w & KNOWN) || (uint32_t)(w >> 32) != (uint32_t)getpid())
		return false;
	*err = -(int)((w >> 1) & 0xffff);
	return true;
}

/* Learn @err (0 or -errno): remembered for this process and returned,
 * unless it may pass (-ENOMEM, -EAGAIN, -EMFILE, -ENFILE: resources, not
 * policy), which is neither and returns 0: the method's own setup then
 * decides (and refuses) in the call. */
static int refusal_learn(struct pa_refusal *r, int err)
{
	uint64_t w;

	if (err == -ENOMEM || err == -EAGAIN || err == -EMFILE || err == -ENFILE)
		return 0;
	w = (uint64_t)(uint32_t)getpid() << 32 | (uint64_t)((-err) & 0xffff) << 1 | KNOWN;
	__atomic_store_n(&r->word, w, __ATOMIC_RELEASE);
	return err;
}

char *pa_refusal_describe(const char *call, const char *what, int err, char *buf, size_t len)
{
	const char *name = strerrorname_np(-err);

	if (err == -EPERM)
		snprintf(buf, len, "%s refused: EPERM (a seccomp profile?)", call);
	else if (err == -ENOSYS)
		snprintf(buf, len, "%s refused: ENOSYS (no %s in this kernel, "
			 "or a seccomp profile)", call, what);
	else
		snprintf(buf, len, "%s refused: %s", call, name ? name : "unknown error");
	return buf;
}

static void describe_setup(const struct pa_refusable *r, int err, char *buf, size_t len)
{
	if (r->describe)
		r->describe(err, buf, len);
	else
		pa_refusal_describe(r->setup, r->what, err, buf, len);
}

int pa_refusable_usable(struct pa_refusable *r, struct pa_log *log, char *why, size_t len)
{
	char buf[160];
	int err;

	if (!refusal_get(&r->setup_refusal, &err)) {
		err = refusal_learn(&r->setup_refusal, r->probe());
		if (err) {
			describe_setup(r, err, buf, sizeof(buf));
			pa_log_to(log, LOG_NOTICE, "%s refused in this process: %s\n", r->method, buf);
		}
	}
	if (err) {
		if (why && len)
			describe_setup(r, err, why, len);
		return -EOPNOTSUPP;
	}
	if (refusal_get(&r->submit_refusal, &err) && err) {
		if (why && len)
			pa_refusal_describe(r->submit, r->what, err, why, len);
		return -EOPNOTSUPP;
	}
	return 0;
}

void pa_refusable_submit_refused(struct pa_refusable *r, struct pa_log *log, int err)
{
	char buf[160];

	refusal_learn(&r->submit_refusal, err);
	pa_log_to(log, LOG_NOTICE, "%s refused in this process: %s\n", r->method,
		  pa_refusal_describe(r->submit, r->what, err, buf, sizeof(buf)));
}

int pa_setup_failed(struct pa_log *log, const char *what, const char *call, int err, bool forced)
{
	pa_log_to(log, LOG_NOTICE, "%s not set up: %s: %s\n", what, call, strerror(-err));
	return !forced || err == -EPERM || err == -ENOSYS ? -EOPNOTSUPP : err;
}
