/* SPDX-License-Identifier: MIT */
/*
 * Pacing for background preallocation.
 *
 * The `none` scheduler (loop devices, most NVMe) has no notion of priority,
 * so the library limits itself: a request may start only when the bytes sent
 * so far, at the current rate, are due.  No credit is saved up while idle,
 * so a cap holds over any interval longer than one request.
 *
 * In background mode the rate adapts (AIMD, as TCP does): every window the
 * pacer asks whether someone else is using the device, and halves the rate
 * if so, down to a floor that keeps the work moving (a share of what our
 * busy shape does beside them, learnt when they appear); otherwise it raises
 * the rate by a fraction of the best throughput seen, until pacing stops
 * limiting, so an idle device is used at nearly full speed.  While others
 * are active, requests are also smaller and sent one at a time.
 *
 * "Someone else" is, first, what the device did beyond our own writes
 * (sysfs `stat`: reads, flushes, bytes written).  Our own full-size
 * requests taking several times longer than the quietest we saw is the
 * signal only where the device has no counters: measured on loop devices
 * over a shared host, that latency grew as much under our own sustained
 * writes on an idle device (the host's cache filling, other tenants) as
 * beside a 4 KiB fdatasync foreground, so it would throttle an idle device.
 */
#include <errno.h>
#include <string.h>
#include <linux/ioprio.h>

#include "base/internal.h"
#include "base/log.h"
#include "base/sysfs_read.h"
#include "base/sysfs_root.h"
#include "src/exec/devstat.h"
#include "src/exec/pace.h"

#define MIB		(1ull << 20)
#define NS		1000000000ull
#define WINDOW_NS	(50ull * 1000000)	/* one decision per window */
/* A window that learns the rate the floor is a share of (the first, and the
 * first after others appear) sends back to back at the busy shape; beside a
 * foreground those are the costly ms. */
#define MEASURE_NS	(WINDOW_NS / 2)
#define WARMUP		4		/* full requests timed before the latency counts */
#define LAT_FACTOR	4		/* latency growth that means contention */
/* Others' requests we ignore: up to FOREIGN_IOPS a second (the filesystem's
 * own log) or FOREIGN_MIN a window (its metadata reads for our allocation:
 * xfs reads a few btree blocks in the first window of an idle device). */
#define FOREIGN_IOPS	100
#define FOREIGN_MIN	8
/* Lowest rate: two sevenths of what the busy shape did back to back beside
 * others (our requests are then in flight about two sevenths of the time).
 * On the loop devices of tests/bench, between 150 and 300 MiB/s (0.06-0.12x
 * of solo), a 4 KiB fdatasync foreground's p99 rose less with our rate than
 * it moved between runs: more than 1% of its writes find a request of ours
 * in flight at every such rate and wait for its remaining time.  The rate
 * decides the progress: in the same 7 runs a fifth reached 0.08x of solo at
 * p99 1.45x / 1.34x (ext4 / xfs) and IOPS 0.98x / 0.97x, two sevenths 0.10x
 * at 1.35x / 1.35x and 0.98x / 0.92x (the sweep in commit 0b89950). */
#define FLOOR_NUM	2
#define FLOOR_DEN	7
#define GROW_SHARE	8		/* increase per window: peak / GROW_SHARE */

/* Read @name ("queue/scheduler", "stat", ...) of device @dev under sysfs
 * @root into @buf, from directory @dir (filled in); a partition's queue is
 * its disk's. */
static bool read_attr(const char *root, uint64_t dev, const char *name, char *buf, size_t len,
		      char *dir, size_t dlen)
{
	bool queue = strncmp(name, "queue/", 6) == 0;
	char link[160];

	if (pa_sysfs_dev_link(root, (dev_t)dev, link, sizeof(link)) < 0)
		return false;
	for (int up = 0; up <= queue; up++) {
		if (pa_path_join(dir, dlen, link, up ? ".." : ".") < 0)
			return false;
		if (pa_sysfs_read_str(dir, name, buf, len) == 0)
			return buf[0] != 0;
	}
	return false;
}

/* What the device did so far: @dir/stat, decoded. */
static bool device_stat(const char *dir, struct pa_devstat *s)
{
	char buf[256];

	return pa_sysfs_read_str(dir, "stat", buf, sizeof(buf)) == 0 &&
	       pa_devstat_parse(buf, s);
}

void pa_pace_init(struct pa_pace *p, struct pa_log *log, const char *root, uint32_t flags,
		  uint64_t max_rate, uint64_t dev)
{
	char buf[256], dir[sizeof(p->stat)];

	memset(p, 0, sizeof(*p));
	p->log = log;
	p->adaptive = flags & PREALLOC_BACKGROUND;
	p->cap = max_rate;
	p->on = p->adaptive || p->cap;
	if (!p->adaptive || !dev)
		return;
	/* Cautious until the first window shows nobody else is there: a
	 * foreground already running never sees a full-speed burst. */
	p->busy = p->measuring = true;
	if (read_attr(root, dev, "queue/scheduler", buf, sizeof(buf), dir, sizeof(dir)))
		p->idle_prio = strstr(buf, "[mq-deadline]") || strstr(buf, "[bfq]");
	if (read_attr(root, dev, "stat", buf, sizeof(buf), dir, sizeof(dir)) &&
	    pa_devstat_parse(buf, &p->dev))
		strcpy(p->stat, dir);
}

/* The rate in force: the lower of the adaptive rate and the cap; 0 = none. */
static uint64_t limit(const struct pa_pace *p)
{
	if (!p->rate || !p->cap)
		return p->rate ? p->rate : p->cap;
	return PA_MIN(p->rate, p->cap);
}

static void sleep_until(uint64_t t)
{
	struct timespec ts = pa_ns_ts(t);

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

bool pa_pace_go(struct pa_pace *p, unsigned int inflight)
{
	if (!p->on)
		return true;
	if (p->busy && inflight)
		return false;
	if (!limit(p) || p->next_ns <= pa_now_ns())
		return true;
	p->applied |= PREALLOC_BG_PACED;
	if (inflight)
		return false;
	sleep_until(p->next_ns);
	return true;
}

void pa_pace_sent(struct pa_pace *p, uint64_t bytes)
{
	uint64_t r = limit(p), now, gap;

	p->inflight += bytes;
	if (!p->on || !r)
		return;
	now = pa_now_ns();
	gap = (uint64_t)((double)bytes * NS / (double)r);
	/* Lateness of less than a request's time (a sleep's overshoot, a
	 * completion reaped late) is made up, else every wake-up would lower
	 * the rate; longer idle time is not saved up: no burst afterwards. */
	if (p->next_ns + gap < now)
		p->next_ns = now;
	p->next_ns += gap;
}

uint16_t pa_pace_ioprio(struct pa_pace *p)
{
	if (!p->idle_prio)
		return 0;
	if (!(p->applied & PREALLOC_BG_IDLE_PRIO))
		pa_log_to(p->log, LOG_INFO, "background: writes sent at I/O priority class idle\n");
	p->applied |= PREALLOC_BG_IDLE_PRIO;
	return IOPRIO_PRIO_VALUE(IOPRIO_CLASS_IDLE, 0);
}

/* Bytes the cap allows in one window: a request never holds more, so the
 * first one (sent without waiting) cannot beat the cap by much. */
static uint64_t cap_bytes(const struct pa_pace *p, uint64_t align)
{
	uint64_t b = p->cap ? (uint64_t)((double)p->cap * WINDOW_NS / NS) : UINT64_MAX;

	return PA_MAX(PA_ROUND_DOWN(b, align), align);
}

uint64_t pa_pace_request(const struct pa_pace *p, uint64_t req, uint32_t align)
{
	if (p->busy)
		req = PA_MIN(req, PA_MAX(PA_ROUND_DOWN((uint64_t)PA_BG_BUSY_REQUEST, align), align));
	return p->cap ? PA_MIN(req, cap_bytes(p, align)) : req;
}

uint64_t pa_pace_chunk(const struct pa_pace *p, uint64_t chunk)
{
	/* 1 MiB is a multiple of any block size the chunk must respect. */
	return p->on ? PA_MIN(chunk, PA_MIN(PA_BG_CHUNK, cap_bytes(p, MIB))) : chunk;
}

/*
 * Did others use the device during the window?  Their work is what the
 * device did beyond our writes, in 4 KiB requests: reads and flushes (we
 * issue neither) count one each, written bytes beyond ours by 4 KiB (how
 * many requests our writes become depends on how the kernel splits them;
 * the bytes do not).  Our requests in flight may have completed on the
 * device but not yet be counted by us: that much is slack.
 */
static bool others_active(struct pa_pace *p, uint64_t win_ns)
{
	struct pa_devstat now;
	uint64_t foreign, extra, ours = p->win_bytes + p->inflight;

	if (!p->stat[0] || !device_stat(p->stat, &now))
		return false;
	extra = now.write_bytes - p->dev.write_bytes;
	extra = extra > ours ? extra - ours : 0;
	foreign = now.reads - p->dev.reads + now.flushes - p->dev.flushes + extra / 4096;
	p->dev = now;
	return foreign > FOREIGN_MIN && foreign * NS > FOREIGN_IOPS * win_ns;
}

/* Latency of our full-size requests against the quietest seen. */
static bool latency_grew(struct pa_pace *p, uint64_t bytes, uint64_t lat_ns)
{
	if (bytes > p->full) {
		/* Larger requests than before: start the baseline afresh. */
		p->full = bytes;
		p->base_ns = p->avg_ns = 0;
		p->samples = 0;
	}
	if (bytes < p->full)
		return false;
	p->avg_ns = p->avg_ns ? (3 * p->avg_ns + lat_ns) / 4 : lat_ns;
	if (++p->samples > WARMUP && p->avg_ns > LAT_FACTOR * p->base_ns)
		return true;
	p->base_ns = p->base_ns ? PA_MIN(p->base_ns, p->avg_ns) : p->avg_ns;
	return false;
}

/* The lowest rate beside others, so the work still ends: a share of what
 * the busy shape did back to back beside them (where the device has no
 * counters, of the best seen). */
static uint64_t floor_rate(const struct pa_pace *p)
{
	return PA_MAX((p->anchor ? p->anchor : p->peak) / FLOOR_DEN * FLOOR_NUM, MIB);
}

/* One decision per window.  When others appear and the busy shape's speed
 * beside them is unknown, the next window sends it back to back to learn
 * it (a share of the idle shape's best would be most of the device), then
 * the rate goes straight to the floor; later contention halves it, down to
 * the floor; without others it climbs back. */
static void decide(struct pa_pace *p, bool contended)
{
	bool measured = p->measuring;
	uint64_t cur = p->rate ? p->rate : p->tput;

	p->measuring = false;
	if (!contended) {
		if (p->rate) {
			p->rate += PA_MAX(p->peak / GROW_SHARE, MIB);
			if (p->rate > 2 * p->peak)
				p->rate = 0;	/* no longer limiting */
		}
		return;
	}
	p->applied |= PREALLOC_BG_ADAPTED;
	if (measured && p->busy) {
		p->anchor = p->tput;
	} else if (p->busy && !p->anchor) {
		p->rate = 0;
		p->measuring = true;
		return;
	}
	p->rate = measured ? floor_rate(p) : PA_MAX(cur / 2, floor_rate(p));
}

/* Tell the log when the rate in force changed: lowered beside others,
 * raised while they are quiet, lifted, or unpaced for one window to learn
 * what our requests do beside them. */
static void log_rate(const struct pa_pace *p, uint64_t before)
{
	const char *why = p->busy ? "others use the device" : "device quiet";

	if (p->rate == before)
		return;
	if (p->rate)
		pa_log_to(p->log, LOG_INFO, "background: %s, rate %s to %llu KiB/s\n", why,
			  before && p->rate > before ? "raised" : "lowered",
			  (unsigned long long)(p->rate >> 10));
	else
		pa_log_to(p->log, LOG_INFO, "background: %s, rate %s\n", why,
			  p->measuring ? "measured beside them for one window" : "no longer limited");
}

void pa_pace_done(struct pa_pace *p, uint64_t bytes, uint64_t lat_ns)
{
	uint64_t now, win, before;
	bool slow;

	p->inflight -= PA_MIN(p->inflight, bytes);
	if (!p->adaptive)
		return;
	now = pa_now_ns();
	slow = latency_grew(p, bytes, lat_ns);
	if (!p->win_ns)
		p->win_ns = now;
	p->win_bytes += bytes;
	win = now - p->win_ns;
	if (win < (p->measuring ? MEASURE_NS : WINDOW_NS))
		return;
	p->tput = (uint64_t)((double)p->win_bytes * NS / (double)win);
	/* The best seen alone; the first window if others were there from the start. */
	if (!p->busy || !p->peak)
		p->peak = PA_MAX(p->peak, p->tput);
	p->busy = others_active(p, win);
	/* The latency is the only signal where the device has no counters. */
	before = p->rate;
	decide(p, p->busy || (slow && !p->stat[0]));
	log_rate(p, before);
	p->win_ns = now;
	p->win_bytes = 0;
}
