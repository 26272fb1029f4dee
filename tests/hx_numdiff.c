/* hx_numdiff GOLDEN OUT [RTOL ATOL]: compare two outputs token by token; tokens
   that parse as numbers compare with a relative/absolute tolerance (default
   1e-8 / 1e-12), others must match exactly. Exit 0 if equal. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int next_token(FILE *f, char *buf, size_t n) {
  int c;
  while ((c = fgetc(f)) != EOF && (c == ' ' || c == '\t' || c == '\n' || c == '\r')) {}
  if (c == EOF) return 0;
  size_t k = 0;
  do {
    if (k + 1 < n) buf[k++] = (char)c;
  } while ((c = fgetc(f)) != EOF && c != ' ' && c != '\t' && c != '\n' && c != '\r');
  buf[k] = '\0';
  return 1;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: hx_numdiff GOLDEN OUT [RTOL ATOL]\n");
    return 2;
  }
  double rtol = argc > 3 ? atof(argv[3]) : 1e-8, atol = argc > 4 ? atof(argv[4]) : 1e-12;
  FILE *a = fopen(argv[1], "r"), *b = fopen(argv[2], "r");
  if (!a || !b) {
    fprintf(stderr, "hx_numdiff: cannot open inputs\n");
    return 2;
  }
  char ta[256], tb[256];
  int line = 0, bad = 0;
  while (1) {
    int ha = next_token(a, ta, sizeof ta), hb = next_token(b, tb, sizeof tb);
    line++;
    if (!ha && !hb) break;
    if (ha != hb) {
      printf("token %d: one output ends early ('%s' vs '%s')\n", line, ha ? ta : "", hb ? tb : "");
      return 1;
    }
    char *ea, *eb;
    double va = strtod(ta, &ea), vb = strtod(tb, &eb);
    if (*ea == '\0' && *eb == '\0' && ea != ta && eb != tb) {
      if (fabs(va - vb) > atol + rtol * fabs(va)) {
        printf("token %d: %s vs %s\n", line, ta, tb);
        bad++;
      }
    } else if (strcmp(ta, tb)) {
      printf("token %d: '%s' vs '%s'\n", line, ta, tb);
      bad++;
    }
  }
  return bad ? 1 : 0;
}
