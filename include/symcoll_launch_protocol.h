/* Internal, not API: the protocol between symcoll-run (launcher/, which never links the
 * library) and the PEs it starts (src/launcher_report.c, the settings of src/env.def).
 *
 * The launcher sets SYMCOLL_<NAME> in each child's environment for every NAME of
 * SYMCOLL_LAUNCH_VARIABLES, replacing inherited ones; each NAME is a row of src/env.def, which
 * the library checks when it is compiled. A PE whose SYMCOLL_LAUNCHER_FD is a pipe with inode
 * SYMCOLL_LAUNCHER_FD_INODE writes one record to it per event, "<rank> <event>\n", in one
 * write of fewer than SYMCOLL_LAUNCH_RECORD_MAX bytes: below PIPE_BUF, so that the PEs'
 * records never interleave. */
#ifndef SYMCOLL_LAUNCH_PROTOCOL_H
#define SYMCOLL_LAUNCH_PROTOCOL_H

/* X(NAME): the variables, numbers first (rank and size; on one node the local ones equal
 * them; the simulated node, only under --nodes; the report pipe and its inode), then texts (the
 * NCCL unique id in hex, or the name of the socket bootstrap's abstract socket; one of the two). */
#define SYMCOLL_LAUNCH_VARIABLES(X)                                                                \
    X(RANK)                                                                                        \
    X(SIZE)                                                                                        \
    X(LOCAL_RANK)                                                                                  \
    X(LOCAL_SIZE)                                                                                  \
    X(NODE_ID)                                                                                     \
    X(LAUNCHER_FD)                                                                                 \
    X(LAUNCHER_FD_INODE)                                                                           \
    X(UNIQUEID)                                                                                    \
    X(BOOTSTRAP_SOCKET)

/* The events: after a successful symcoll_init, and when symcoll_finalize returns. */
#define SYMCOLL_LAUNCH_EVENT_INIT "init"
#define SYMCOLL_LAUNCH_EVENT_FINALIZE "finalize"

#define SYMCOLL_LAUNCH_RECORD_MAX 64

#endif
