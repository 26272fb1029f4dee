/* Output files and output sets. Every output is written under a temporary name beside its final
   name and registered in a fixed table, so that a signal handler can remove the temporaries
   without allocating (unlink is async-signal-safe). Inside an output set the renames wait for
   hx_outset_end: all files of the set get their final names together, or none does. The renames
   go in three rounds: files that stand alone (.vtu, .msh, ...), then companions (a .re2's field
   file and .co2, .pvtu pieces), then the files that name them (.re2, .pvtu index), so that a
   file is never in place before what it names, and a .re2 follows its field file at once. */
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hx_error.h"
#include "hx_io.h"

#define OUT_SLOTS 64

/* state: 0 free, 1 being written, 2 complete (rename pending) */
typedef struct out_slot {
  volatile sig_atomic_t state;
  int round; /* HX_OUT_ALONE, HX_OUT_COMPANION, HX_OUT_PRIMARY */
  char tmp[4200];
  char path[4096];
  char old[4220]; /* during hx_outset_end: a second name of the file the rename replaces, or "" */
} out_slot;

static out_slot slots[OUT_SLOTS];
/* while the renames run, a signal (on whichever thread it lands) is only noted, and acted on
   once the set is renamed whole */
static volatile sig_atomic_t renaming, pending_sig;
static int set_depth, open_round = HX_OUT_ALONE;

int hx_outset_round(int round) {
  int old = open_round;
  open_round = round;
  return old;
}

int hx_outtmp_open(const char *path, int *slot) {
  *slot = -1;
  HX_CHECK(strlen(path) < sizeof slots[0].path, HX_ERR_INPUT, "output path too long: %.60s...", path);
  int s = 0;
  while (s < OUT_SLOTS && slots[s].state) s++;
  HX_CHECK(s < OUT_SLOTS, HX_ERR_INPUT, "more than %d output files at once ('%s')", OUT_SLOTS, path);
  out_slot *o = &slots[s];
  snprintf(o->path, sizeof o->path, "%s", path);
  snprintf(o->tmp, sizeof o->tmp, "%s.tmp.%ld", path, (long)getpid());
  o->round = open_round;
  atomic_signal_fence(memory_order_seq_cst); /* the name is whole before the handler may see it */
  o->state = 1;
  *slot = s;
  return HX_OK;
}

const char *hx_outtmp_name(int slot) { return slot >= 0 && slot < OUT_SLOTS ? slots[slot].tmp : ""; }

static void slot_free(out_slot *o) {
  o->state = 0;
  atomic_signal_fence(memory_order_seq_cst);
  o->tmp[0] = 0;
}

void hx_outtmp_drop(int slot) {
  if (slot < 0 || slot >= OUT_SLOTS || !slots[slot].state) return;
  remove(slots[slot].tmp);
  slot_free(&slots[slot]);
}

static int slot_rename(out_slot *o) {
  int rc = HX_OK;
  if (rename(o->tmp, o->path) != 0) {
    int err = errno;
    remove(o->tmp);
    rc = HX_ERROR(HX_ERR_IO, "cannot rename the temporary file to '%s': %s", o->path, strerror(err));
  }
  slot_free(o);
  return rc;
}

int hx_outtmp_done(int slot, int round) {
  HX_CHECK(slot >= 0 && slot < OUT_SLOTS && slots[slot].state == 1, HX_ERR_INTERNAL, "output slot %d is not open", slot);
  out_slot *o = &slots[slot];
  o->round = round;
  o->state = 2;
  if (set_depth == 0) return slot_rename(o);
  return HX_OK;
}

void hx_outset_begin(void) { set_depth++; }

void hx_outset_cleanup(void) {
  for (int s = 0; s < OUT_SLOTS; s++)
    if (slots[s].state) hx_outtmp_drop(s);
}

int hx_outset_end(hx_comm comm, int rc) {
  if (set_depth > 0) set_depth--;
  rc = hx_comm_agree(comm, rc);
  if (set_depth > 0) return rc; /* an enclosing set renames */
  for (int s = 0; rc == HX_OK && s < OUT_SLOTS; s++)
    if (slots[s].state == 1) rc = HX_ERROR(HX_ERR_INTERNAL, "'%s' was left unfinished by its writer", slots[s].path);
  rc = hx_comm_agree(comm, rc);
  if (rc != HX_OK) {
    hx_outset_cleanup();
    return rc;
  }
  /* no signal between the renames: the set is renamed whole (a signal is noted by the handler and
     raised again once the renames are done) */
  renaming = 1;
  atomic_signal_fence(memory_order_seq_cst);
  /* A rename that replaces a file frees that file's blocks inside the rename, and a SIGKILL sent
     meanwhile takes effect as the rename returns: between a field file's rename and its .re2's.
     A second name for each file to be replaced keeps its blocks until every rename is done,
     so the renames are quick and follow each other at once. */
  for (int s = 0; s < OUT_SLOTS; s++) {
    out_slot *o = &slots[s];
    o->old[0] = 0;
    struct stat st;
    if (o->state != 2 || lstat(o->path, &st) != 0 || !S_ISREG(st.st_mode)) continue;
    snprintf(o->old, sizeof o->old, "%s.old", o->tmp);
    if (link(o->path, o->old) != 0) o->old[0] = 0; /* a file system without hard links: slower renames */
  }
  char olds[OUT_SLOTS][4220];
  for (int s = 0; s < OUT_SLOTS; s++) snprintf(olds[s], sizeof olds[s], "%s", slots[s].old);
  for (int round = HX_OUT_ALONE; round <= HX_OUT_PRIMARY; round++) {
    for (int s = 0; s < OUT_SLOTS; s++)
      if (slots[s].state == 2 && slots[s].round == round) {
        int r = slot_rename(&slots[s]);
        if (rc == HX_OK) rc = r;
      }
    /* every rank's companions (its .pvtu piece) are in place before the file that names them;
       on one rank the next round follows at once (a .re2 microseconds after its field file) */
    if (hx_comm_size(comm) > 1) rc = hx_comm_agree(comm, rc);
    if (rc != HX_OK) break;
  }
  hx_outset_cleanup();
  for (int s = 0; s < OUT_SLOTS; s++)
    if (olds[s][0]) unlink(olds[s]);
  atomic_signal_fence(memory_order_seq_cst);
  renaming = 0;
  if (pending_sig) raise(pending_sig); /* the handler: no temporary left, the default action */
  return rc;
}

static void on_signal(int sig) {
  if (renaming) { /* the renames finish first; hx_outset_end raises it again */
    pending_sig = sig;
    return;
  }
  int saved = errno;
  for (int s = 0; s < OUT_SLOTS; s++)
    if (slots[s].state) unlink(slots[s].tmp);
  errno = saved;
  signal(sig, SIG_DFL);
  raise(sig); /* delivered with the default action once the handler returns */
}

int hx_outset_signals(void) {
  const int sigs[3] = {SIGINT, SIGTERM, SIGHUP};
  for (int k = 0; k < 3; k++) {
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigfillset(&sa.sa_mask); /* one handler at a time */
    HX_CHECK(sigaction(sigs[k], NULL, &old) == 0, HX_ERR_INTERNAL, "sigaction: %s", strerror(errno));
    if (old.sa_handler == SIG_IGN) continue; /* started with the signal ignored (nohup): keep it so */
    HX_CHECK(sigaction(sigs[k], &sa, NULL) == 0, HX_ERR_INTERNAL, "sigaction: %s", strerror(errno));
  }
  return HX_OK;
}

/* ---- one output file ---- */

int hx_outfile_open(hx_outfile *f, const char *path) {
  memset(f, 0, sizeof *f);
  f->slot = -1;
  HX_CHECK(strlen(path) < sizeof f->path, HX_ERR_INPUT, "output path too long: %.60s...", path);
  snprintf(f->path, sizeof f->path, "%s", path);
  HX_CALL(hx_outtmp_open(path, &f->slot));
  f->round = slots[f->slot].round;
  snprintf(f->tmp, sizeof f->tmp, "%s", hx_outtmp_name(f->slot));
  f->fp = fopen(f->tmp, "wb");
  if (!f->fp) {
    int err = errno;
    hx_outtmp_drop(f->slot);
    f->slot = -1;
    f->tmp[0] = 0;
    return HX_ERROR(HX_ERR_IO, "cannot write '%s': %s", path, strerror(err));
  }
  /* large buffered writes: the writers emit blocks of elements */
  setvbuf(f->fp, NULL, _IOFBF, 1 << 20);
  return HX_OK;
}

int hx_outfile_write(hx_outfile *f, const void *data, size_t bytes) {
  if (bytes && fwrite(data, 1, bytes, f->fp) != bytes)
    return HX_ERROR(HX_ERR_IO, "writing '%s' failed: %s", f->path, strerror(errno));
  return HX_OK;
}

int hx_outfile_commit(hx_outfile *f) {
  int bad = ferror(f->fp), err = 0;
  if (fflush(f->fp) != 0) bad = 1, err = errno;
  if (fclose(f->fp) != 0 && !bad) bad = 1, err = errno;
  f->fp = NULL;
  if (bad) {
    hx_outtmp_drop(f->slot);
    f->slot = -1;
    return HX_ERROR(HX_ERR_IO, "writing '%s' failed: %s", f->path, strerror(err ? err : EIO));
  }
  int rc = hx_outtmp_done(f->slot, f->round);
  f->slot = -1;
  return rc;
}

void hx_outfile_abort(hx_outfile *f) {
  if (f->fp) fclose(f->fp);
  f->fp = NULL;
  hx_outtmp_drop(f->slot);
  f->slot = -1;
}
