/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RESSD_JSON_H
#define RESSD_JSON_H

#include <stdbool.h>
#include <stdio.h>

#include "ressd-types.h"

/* A small streaming JSON writer, two-space indented. */
struct json {
	FILE *f;
	int depth;
	bool first[64];
};

void json_init(struct json *j, FILE *f);
/* @key is NULL inside arrays and for the top-level value. */
void json_obj_begin(struct json *j, const char *key);
void json_obj_end(struct json *j);
void json_arr_begin(struct json *j, const char *key);
void json_arr_end(struct json *j);
void json_str(struct json *j, const char *key, const char *v);	/* NULL: null */
void json_u64(struct json *j, const char *key, u64 v);
void json_double(struct json *j, const char *key, double v);
void json_bool(struct json *j, const char *key, bool v);
void json_null(struct json *j, const char *key);
/* Finish the document (a newline). */
void json_done(struct json *j);

#endif
