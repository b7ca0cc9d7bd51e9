/* SPDX-License-Identifier: MIT */
#include <inttypes.h>

#include "json.h"

static void sep(struct json *j, const char *key)
{
	if (!j->first[j->depth])
		fputc(',', j->f);
	j->first[j->depth] = false;
	if (key) {
		fputc('"', j->f);
		fputs(key, j->f);	/* keys are literals of ours */
		fputs("\":", j->f);
	}
}

static void open_(struct json *j, const char *key, char c)
{
	sep(j, key);
	fputc(c, j->f);
	j->first[++j->depth] = true;
}

void json_begin(struct json *j, FILE *f)
{
	j->f = f;
	j->depth = 0;
	j->first[0] = true;
	fputc('{', f);
	j->first[++j->depth] = true;
}

void json_end(struct json *j)
{
	fputs("}\n", j->f);
	j->depth = 0;
}

void json_object(struct json *j, const char *key) { open_(j, key, '{'); }
void json_array(struct json *j, const char *key) { open_(j, key, '['); }
void json_object_end(struct json *j) { j->depth--; fputc('}', j->f); }
void json_array_end(struct json *j) { j->depth--; fputc(']', j->f); }

void json_str(struct json *j, const char *key, const char *val)
{
	const unsigned char *p;

	sep(j, key);
	if (!val) {
		fputs("null", j->f);
		return;
	}
	fputc('"', j->f);
	for (p = (const unsigned char *)val; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(j->f, "\\%c", *p);
		else if (*p < 0x20)
			fprintf(j->f, "\\u%04x", *p);
		else
			fputc(*p, j->f);
	}
	fputc('"', j->f);
}

void json_u64(struct json *j, const char *key, uint64_t val)
{
	sep(j, key);
	fprintf(j->f, "%" PRIu64, val);
}

void json_i64(struct json *j, const char *key, int64_t val)
{
	sep(j, key);
	fprintf(j->f, "%" PRId64, val);
}

void json_bool(struct json *j, const char *key, bool val)
{
	sep(j, key);
	fputs(val ? "true" : "false", j->f);
}

void json_null(struct json *j, const char *key)
{
	sep(j, key);
	fputs("null", j->f);
}

void json_double(struct json *j, const char *key, double val)
{
	sep(j, key);
	fprintf(j->f, "%.6f", val);
}
