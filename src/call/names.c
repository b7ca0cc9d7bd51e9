/* SPDX-License-Identifier: MIT */
/* Names of the public enums, for messages; a method's is its row's
 * (src/method/method.c). */
#include "base/internal.h"
#include "src/plan/plan.h"

static const char *const phase_names[] = {
	[PREALLOC_PHASE_NONE] = "none",
	[PREALLOC_PHASE_TARGET] = "target",
	[PREALLOC_PHASE_REQUEST] = "request",
	[PREALLOC_PHASE_CLAIM] = "claim",
	[PREALLOC_PHASE_SIGNATURES] = "signatures",
	[PREALLOC_PHASE_CLASSIFY] = "classify",
	[PREALLOC_PHASE_SPACE_CHECK] = "space-check",
	[PREALLOC_PHASE_RESERVE] = "reserve",
	[PREALLOC_PHASE_ZERO] = "zero",
	[PREALLOC_PHASE_SYNC] = "sync",
};

/* Both exported names call this, never each other through the PLT. */
static const char *phase_name(unsigned int phase)
{
	return phase < PA_ARRAY_SIZE(phase_names) ? phase_names[phase] : NULL;
}

PA_EXPORT const char *prealloc_phase_name(enum prealloc_phase phase)
{
	return phase_name((unsigned int)phase);
}

/* The name of 0.2 to 0.4, still exported. */
PA_EXPORT const char *prealloc_step_name(enum prealloc_step step)
{
	return phase_name((unsigned int)step);
}

static const char *const background_names[] = { "paced", "idle-ioprio", "adapted" };

PA_EXPORT const char *prealloc_background_name(enum prealloc_background bit)
{
	unsigned int b = (unsigned int)bit;

	if (!b || (b & (b - 1)))
		return NULL;
	b = (unsigned int)__builtin_ctz(b);
	return b < PA_ARRAY_SIZE(background_names) ? background_names[b] : NULL;
}

static const char *const action_names[] = {
	[PREALLOC_ACTION_RESERVE] = "reserve",
	[PREALLOC_ACTION_ZERO] = "zero",
	[PREALLOC_ACTION_WRITE_EDGES] = "write-edges",
	[PREALLOC_ACTION_SYNC] = "sync",
};

PA_EXPORT const char *prealloc_action_name(enum prealloc_action action)
{
	return (unsigned int)action < PA_ARRAY_SIZE(action_names) ? action_names[action] : NULL;
}

PA_EXPORT const char *prealloc_write_zeroes_name(enum prealloc_write_zeroes verdict)
{
	const struct pa_wz_verdict *v = pa_wz_verdict((unsigned int)verdict);

	return v ? v->name : NULL;
}
