#include "ops.h"

#include <string.h>

/* Bus-bandwidth factors of nccl-tests' PERFORMANCE.md by flow: the traffic on the busiest
 * link relative to the algorithm bandwidth; NULL for a synchronization. */
static double busbw_one_to_all(int npes) {
    (void)npes;
    return 1.0;
}
static double busbw_reduce(int npes) {
    return 2.0 * (npes - 1) / npes;
}
static double busbw_share(int npes) {
    return (double)(npes - 1) / npes;
}
#define BUSBW_SYNC NULL
#define BUSBW_ONE_TO_ALL busbw_one_to_all
#define BUSBW_REDUCE busbw_reduce
#define BUSBW_GATHER busbw_share
#define BUSBW_EXCHANGE busbw_share
#define BUSBW_REDUCE_SCATTER busbw_share
#define BUSBW_EXCHANGE_COUNTED busbw_share

/* Each collective's algorithm names, from the registry. */
#define ALGORITHM_NAME(coll, id, name, grid, syncs, efficiency, traffic) #name,
#define ALGORITHM_NAMES(id, name, nccl, tuned, flow, algorithms)                                   \
    static const char *const name##_algorithms[] = {algorithms(ALGORITHM_NAME) NULL};
SYMCOLL_COLLECTIVES(ALGORITHM_NAMES)

/* One row per collective of the registry (kernels/collectives.def). */
#define OP_ROW(id, name, nccl, tuned, flow, algorithms)                                            \
    [PERF_OP_##id] = {#name,                                                                       \
                      SYMCOLL_COLL_##id,                                                           \
                      nccl,                                                                        \
                      SYMCOLL_TUNED_SELECT(tuned, "SYMCOLL_ALGO_" #id, NULL),                      \
                      name##_algorithms,                                                           \
                      BUSBW_##flow},
static const perf_op_info_t op_table[PERF_NUM_OPS] = {SYMCOLL_COLLECTIVES(OP_ROW)};

const perf_op_info_t *perf_op_info(perf_op_t op) {
    return &op_table[op];
}

int perf_op_from_name(const char *name) {
    for (int op = 0; op < PERF_NUM_OPS; op++)
        if (strcmp(name, op_table[op].name) == 0 ||
            (*op_table[op].nccl_name && strcmp(name, op_table[op].nccl_name) == 0))
            return op;
    return -1;
}

int perf_datatype_from_name(const char *name) {
    static const struct {
        const char *alias;
        symcoll_datatype_t type;
    } nccl_tests_names[] = {
        {"half", SYMCOLL_FLOAT16},
        {"float", SYMCOLL_FLOAT32},
        {"double", SYMCOLL_FLOAT64},
        {"int", SYMCOLL_INT32},
    };
    for (int t = 0; t < SYMCOLL_NUM_DATATYPES; t++) {
        if (strcmp(name, symcoll_datatype_name((symcoll_datatype_t)t)) == 0) {
            return t;
        }
    }
    for (size_t i = 0; i < sizeof nccl_tests_names / sizeof nccl_tests_names[0]; i++) {
        if (strcmp(name, nccl_tests_names[i].alias) == 0) {
            return nccl_tests_names[i].type;
        }
    }
    return -1;
}

int perf_redop_from_name(const char *name) {
    for (int op = 0; op < SYMCOLL_NUM_OPS; op++) {
        if (strcmp(name, symcoll_op_name((symcoll_op_t)op)) == 0) {
            return op;
        }
    }
    return -1;
}

bool perf_redop_valid(symcoll_datatype_t type, symcoll_op_t redop) {
    bool bitwise = redop == SYMCOLL_AND || redop == SYMCOLL_OR || redop == SYMCOLL_XOR;
    return !(bitwise && symcoll_datatype_is_float(type));
}

static symcoll_flow_t flow_of(perf_op_t op) {
    return symcoll_collective_flow(op_table[op].collective);
}

bool perf_op_reduces(perf_op_t op) {
    symcoll_flow_t flow = flow_of(op);
    return flow == SYMCOLL_FLOW_REDUCE || flow == SYMCOLL_FLOW_REDUCE_SCATTER;
}

bool perf_op_nccl_syncs_host(perf_op_t op) {
    return flow_of(op) == SYMCOLL_FLOW_EXCHANGE_COUNTED;
}

/* Whether the flow moves a block per pair of PEs (alltoall, and alltoallv on average). */
static bool exchanges(symcoll_flow_t flow) {
    return flow == SYMCOLL_FLOW_EXCHANGE || flow == SYMCOLL_FLOW_EXCHANGE_COUNTED;
}

/* Whether the call's count is per PE (the size is every PE's blocks together). */
static bool counts_per_pe(perf_op_t op) {
    symcoll_flow_t flow = flow_of(op);
    return flow == SYMCOLL_FLOW_GATHER || exchanges(flow) || flow == SYMCOLL_FLOW_REDUCE_SCATTER;
}

size_t perf_op_count(perf_op_t op, size_t bytes, size_t elem_size, int npes) {
    if (flow_of(op) == SYMCOLL_FLOW_SYNC || elem_size == 0) {
        return 0;
    }
    return counts_per_pe(op) ? bytes / elem_size / (size_t)npes : bytes / elem_size;
}

size_t perf_op_bytes(perf_op_t op, size_t count, size_t elem_size, int npes) {
    return counts_per_pe(op) ? count * elem_size * (size_t)npes : count * elem_size;
}

size_t perf_op_src_bytes(perf_op_t op, size_t count, size_t elem_size, int npes) {
    symcoll_flow_t flow = flow_of(op);
    bool blocks = exchanges(flow) || flow == SYMCOLL_FLOW_REDUCE_SCATTER;
    return blocks ? count * elem_size * (size_t)npes : count * elem_size;
}

size_t perf_op_dst_bytes(perf_op_t op, size_t count, size_t elem_size, int npes) {
    symcoll_flow_t flow = flow_of(op);
    bool blocks = flow == SYMCOLL_FLOW_GATHER || exchanges(flow);
    return blocks ? count * elem_size * (size_t)npes : count * elem_size;
}

size_t perf_call_dst_bytes(const perf_call_t *c, int npes) {
    size_t elem = symcoll_datatype_size(c->type);
    return c->counts != NULL ? c->counts->capacity * elem
                             : perf_op_dst_bytes(c->op, c->count, elem, npes);
}

double perf_algbw_gbps(size_t bytes, double time_us) {
    return time_us > 0 ? (double)bytes / time_us / 1e3 : 0.0;
}

/* The in-kernel collectives, one row each (PERF_DEV_COLLS). */
#define DEV_COLL_ROW(id, name) [PERF_DEV_COLL_##id] = {"dev_" #name, PERF_OP_##id},
static const struct {
    const char *name;
    perf_op_t op;
} dev_colls[PERF_DEV_NUM_COLLS] = {PERF_DEV_COLLS(DEV_COLL_ROW)};

perf_op_t perf_dev_coll_op(perf_dev_coll_t c) {
    return dev_colls[c].op;
}

const char *perf_dev_coll_name(perf_dev_coll_t c) {
    return dev_colls[c].name;
}

int perf_dev_coll_from_name(const char *name) {
    for (int c = 0; c < PERF_DEV_NUM_COLLS; c++)
        if (strcmp(name, dev_colls[c].name) == 0)
            return c;
    return -1;
}
