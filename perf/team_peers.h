/* --team peers: the PEs of one local rank, one of each node, as a data-parallel group runs
 * beside tensor parallelism inside each node; a team per local rank, all running at once. */
#ifndef SYMCOLL_PERF_TEAM_PEERS_H
#define SYMCOLL_PERF_TEAM_PEERS_H

#include "symcoll.h"

/* Collective over WORLD, after init: makes the team of every local rank (the nodes' PEs
 * contiguous in rank, as many on each) and leaves this PE's in *team. 0, or -1 after printing
 * why. */
int perf_team_peers(symcoll_team_t *team);

#endif
