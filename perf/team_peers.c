/* See team_peers.h. */
#include "team_peers.h"

#include "fail.h"

int perf_team_peers(symcoll_team_t *team) {
    const int per_node = symcoll_team_n_pes(SYMCOLL_TEAM_NODE), n = symcoll_n_pes();
    *team = SYMCOLL_TEAM_INVALID;
    /* Every PE takes part in every split, in one order (each is collective over WORLD), and keeps
     * the team it is in: PEs whose nodes differ in size ask for different teams, and the split
     * refuses that on every PE alike, where a PE that stopped early would leave the others
     * waiting. */
    for (int local = 0; local < per_node; local++) {
        symcoll_team_t t = SYMCOLL_TEAM_INVALID;
        if (symcoll_team_split_strided(SYMCOLL_TEAM_WORLD, local, per_node, n / per_node, &t) !=
            SYMCOLL_SUCCESS) {
            return perf_fail("--team peers: symcoll_team_split_strided(WORLD, %d, %d, %d): %s",
                             local, per_node, n / per_node, symcoll_last_error());
        }
        if (t != SYMCOLL_TEAM_INVALID) {
            *team = t;
        }
    }
    return *team != SYMCOLL_TEAM_INVALID
               ? 0
               : perf_fail("--team peers: this PE is in none of the teams of one local rank (%d "
                           "PEs, %d on this node)",
                           n, per_node);
}
