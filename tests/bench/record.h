/* SPDX-License-Identifier: MIT */
/*
 * A benchmark's record: one JSON object, built with json-c and printed as
 * one line on stdout, which the runners (preallocbench/) read with Python's
 * json.  Doubles print as "%.6f" (record_print).
 */
#ifndef PREALLOC_BENCH_RECORD_H
#define PREALLOC_BENCH_RECORD_H

#include <stdint.h>
#include <stdio.h>
#include <json-c/json.h>

static inline void record_u64(struct json_object *o, const char *key, uint64_t val)
{
	json_object_object_add(o, key, json_object_new_uint64(val));
}

static inline void record_i64(struct json_object *o, const char *key, int64_t val)
{
	json_object_object_add(o, key, json_object_new_int64(val));
}

static inline void record_double(struct json_object *o, const char *key, double val)
{
	json_object_object_add(o, key, json_object_new_double(val));
}

/* @val NULL: null. */
static inline void record_str(struct json_object *o, const char *key, const char *val)
{
	json_object_object_add(o, key, val ? json_object_new_string(val) : NULL);
}

static inline void record_bool(struct json_object *o, const char *key, int val)
{
	json_object_object_add(o, key, json_object_new_boolean(val));
}

/* Print @o as one line and free it. */
static inline void record_print(struct json_object *o)
{
	json_c_set_serialization_double_format("%.6f", JSON_C_OPTION_THREAD);
	puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
					       JSON_C_TO_STRING_NOSLASHESCAPE));
	fflush(stdout);
	json_object_put(o);
}

#endif
