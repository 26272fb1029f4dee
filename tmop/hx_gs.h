/* Gather-scatter of L-vector entries shared between MPI ranks: node ids that appear on several ranks are summed by pairwise
   exchanges with the neighbour ranks that share them.

   Usage:
     hx_gs *gs;
     HX_CALL(hx_gs_create(comm, num_nodes, ids, &gs));   ids sorted ascending, unique
     HX_CALL(hx_gs_sum(gs, v, 3));        v [num_nodes][3]: shared rows summed over ranks
     double d = hx_gs_dot(gs, a, b, 3);   each node counted once (by its lowest rank)
     hx_gs_destroy(&gs);
   Contributions are added in ascending rank order on every rank, so a shared
   node gets bitwise the same value everywhere. All calls are collective. */
#pragma once
#include <stdint.h>

#include "hx_comm.h"
#include "hx_types.h"

typedef struct hx_gs hx_gs;

/** Build the exchange pattern (collective on comm). ids: global ids of the local
    nodes, sorted ascending, no repeats (borrowed during the call). */
int hx_gs_create(hx_comm comm, hx_lid num_nodes, const hx_gid *ids, hx_gs **out);
void hx_gs_destroy(hx_gs **gs);
/** Sum each shared node's ncomp entries over all ranks that hold it (collective). */
int hx_gs_sum(const hx_gs *gs, double *v, int ncomp);
/** Bitwise OR of a 64-bit flag per node over the ranks that hold it (collective). */
int hx_gs_or(const hx_gs *gs, uint64_t *v);
/** Small sets of codes per node: set[width] sorted ascending, HX_GS_SET_EMPTY padded; a set
    that would hold more than width codes becomes {HX_GS_SET_FULL}. */
#define HX_GS_SET_EMPTY UINT32_MAX
#define HX_GS_SET_FULL (UINT32_MAX - 1)
#define HX_GS_SET_WIDTH 4
/** Add code to set[HX_GS_SET_WIDTH] (HX_GS_SET_FULL makes the set full). */
void hx_gs_set_insert(uint32_t *set, uint32_t code);
/** Union of each node's set (sets[num_nodes][HX_GS_SET_WIDTH]) over the ranks that hold it
    (collective): every rank ends with the same set. */
int hx_gs_union(const hx_gs *gs, uint32_t *sets);
/** 1 for nodes another rank holds too (the only entries hx_gs_sum reads or writes). [num_nodes] */
const unsigned char *hx_gs_shared(const hx_gs *gs);
/** 1 for nodes this rank owns (it is the lowest rank holding them). [num_nodes] */
const unsigned char *hx_gs_owned(const hx_gs *gs);
/** Global dot product sum_owned a.b over ncomp components per node (collective). */
double hx_gs_dot(const hx_gs *gs, const double *a, const double *b, int ncomp);
/** Number of neighbour ranks and shared node entries (for logs/tests). */
void hx_gs_stats(const hx_gs *gs, int *num_nbrs, hx_lid *num_shared);
