/* What this build is: its version, the git commit it was built from, and the optional parts
   compiled in (hexpack --version).

   Usage:
     hx_build_print(stdout, 0);         text, one item a line
     hx_build_print(stdout, 1);         one JSON object, "schema_version": 1
     const hx_build_feature *f; int n = hx_build_features(&f);   the table itself */
#pragma once
#include <stdio.h>

typedef struct hx_build_feature {
  const char *name; /* "cuda", "mpi", ... */
  int on;           /* compiled in */
  const char *what; /* what it gives, one short phrase */
} hx_build_feature;

/** The version ("0.1.0"). */
const char *hx_build_version(void);
/** The git commit the build was made from (12 hex digits), or "unknown" outside a git checkout;
    captured at every build. */
const char *hx_build_commit(void);
/** 1 when the checkout had changes to tracked files at build time. */
int hx_build_dirty(void);
/** The CMake build type ("Release", ...) and the C compiler ("GNU 12.2.0"). */
const char *hx_build_type(void);
const char *hx_build_compiler(void);
/** The optional parts, compiled in or not: *out points to a static table; returns its length. */
int hx_build_features(const hx_build_feature **out);
/** Print the version, commit, build and features: text (one "key: value" a line) where
    json_schema is 0, else one JSON object on one line whose "schema_version" is json_schema
    (the caller's document version: the CLI's, docs/json.md). */
void hx_build_print(FILE *out, int json_schema);
