/* SPDX-License-Identifier: MIT */
/* A tiny JSON writer for the benchmark's records (one object per run). */
#ifndef PREALLOC_JSON_H
#define PREALLOC_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct json {
	FILE *f;
	int depth;
	bool first[16];		/* no comma before the next member at this depth */
};

void json_begin(struct json *j, FILE *f);	/* opens the top-level object */
void json_end(struct json *j);			/* closes it and prints a newline */
void json_object(struct json *j, const char *key);	/* key NULL inside arrays */
void json_object_end(struct json *j);
void json_array(struct json *j, const char *key);
void json_array_end(struct json *j);
void json_str(struct json *j, const char *key, const char *val);	/* val NULL: null */
void json_u64(struct json *j, const char *key, uint64_t val);
void json_i64(struct json *j, const char *key, int64_t val);
void json_bool(struct json *j, const char *key, bool val);
void json_null(struct json *j, const char *key);
void json_double(struct json *j, const char *key, double val);

#endif
