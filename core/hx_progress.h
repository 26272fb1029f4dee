/* A progress bar on stderr for long stages, drawn only when stderr is a terminal
   and progress is enabled (the CLI enables it; libraries and tests stay silent).

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
  int enabled, drawn, last_permille;
} hx_progress;

/** Turn drawing on or off for the whole process (default off). */
void hx_progress_enable(int on);
void hx_progress_start(hx_progress *p, const char *label, hx_gid total);
void hx_progress_update(hx_progress *p, hx_gid done);
void hx_progress_finish(hx_progress *p);
