/* Progress of long stages on stderr, when enabled (the CLI enables it; libraries and tests stay
   silent): a bar on a terminal; into a file or a pipe a plain line every few seconds,
     progress: curving 45.2 % (4520 of 10000), 12.3 s elapsed, eta 15.0 s

   Usage (call update from one thread, e.g. between blocks of a parallel loop):
     hx_progress p; hx_progress_start(&p, "curving", num_elem);
     for blocks: ...; hx_progress_update(&p, done);
     hx_progress_finish(&p);                       erases the bar */
#pragma once
#include "hx_types.h"

typedef struct hx_progress {
  char label[32];
  hx_gid total, done;
  double t0, last_draw;
  int enabled, drawn, last_permille, tty;
} hx_progress;

/** Turn drawing on or off for the whole process (default off). */
void hx_progress_enable(int on);
/** Seconds between the plain lines when stderr is not a terminal (default 5; 0: none). */
void hx_progress_set_interval(double seconds);
void hx_progress_start(hx_progress *p, const char *label, hx_gid total);
void hx_progress_update(hx_progress *p, hx_gid done);
void hx_progress_finish(hx_progress *p);
