/* A table of one kernel per (datatype, op) pair, stamped from a template kernel K<T, Op>: rows
 * follow symcoll_datatype_t, columns symcoll_op_t, NULL where the op is not defined for the type
 * (the bitwise ops on floats). */
#ifndef SYMCOLL_TYPE_OP_TABLE_CUH
#define SYMCOLL_TYPE_OP_TABLE_CUH

#include "kernel_load.h"
#include "symcoll/detail/reduce_ops.cuh"

static_assert(SYMCOLL_INT8 == 0 && SYMCOLL_UINT8 == 1 && SYMCOLL_INT32 == 2 &&
                  SYMCOLL_UINT32 == 3 && SYMCOLL_INT64 == 4 && SYMCOLL_UINT64 == 5 &&
                  SYMCOLL_FLOAT16 == 6 && SYMCOLL_BFLOAT16 == 7 && SYMCOLL_FLOAT32 == 8 &&
                  SYMCOLL_FLOAT64 == 9,
              "type-op table rows follow symcoll_datatype_t");
static_assert(SYMCOLL_SUM == 0 && SYMCOLL_PROD == 1 && SYMCOLL_MIN == 2 && SYMCOLL_MAX == 3 &&
                  SYMCOLL_AND == 4 && SYMCOLL_OR == 5 && SYMCOLL_XOR == 6,
              "type-op table columns follow symcoll_op_t");

#define SYMCOLL_TYPE_OP_COMMON(K, T)                                                               \
    K<T, symcoll_coll_sum>, K<T, symcoll_coll_prod>, K<T, symcoll_coll_min>, K<T, symcoll_coll_max>
#define SYMCOLL_TYPE_OP_INTEGER(K, T)                                                              \
    {                                                                                              \
        SYMCOLL_TYPE_OP_COMMON(K, T), K<T, symcoll_coll_and>, K<T, symcoll_coll_or>,               \
            K<T, symcoll_coll_xor>                                                                 \
    }
#define SYMCOLL_TYPE_OP_FLOAT(K, T)                                                                \
    { SYMCOLL_TYPE_OP_COMMON(K, T), NULL, NULL, NULL }

/* The initializer of a [SYMCOLL_NUM_DATATYPES][SYMCOLL_NUM_OPS] table of K's instances. */
#define SYMCOLL_TYPE_OP_TABLE(K)                                                                   \
    {                                                                                              \
        SYMCOLL_TYPE_OP_INTEGER(K, int8_t), SYMCOLL_TYPE_OP_INTEGER(K, uint8_t),                   \
            SYMCOLL_TYPE_OP_INTEGER(K, int32_t), SYMCOLL_TYPE_OP_INTEGER(K, uint32_t),             \
            SYMCOLL_TYPE_OP_INTEGER(K, int64_t), SYMCOLL_TYPE_OP_INTEGER(K, uint64_t),             \
            SYMCOLL_TYPE_OP_FLOAT(K, __half), SYMCOLL_TYPE_OP_FLOAT(K, __nv_bfloat16),             \
            SYMCOLL_TYPE_OP_FLOAT(K, float), SYMCOLL_TYPE_OP_FLOAT(K, double)                      \
    }

/* Loads every kernel of such a table (symcoll_kernel_load). */
template <typename K>
static cudaError_t
symcoll_type_op_table_load(const K (&table)[SYMCOLL_NUM_DATATYPES][SYMCOLL_NUM_OPS]) {
    for (int type = 0; type < SYMCOLL_NUM_DATATYPES; type++)
        for (int op = 0; op < SYMCOLL_NUM_OPS; op++) {
            cudaError_t err =
                table[type][op] ? symcoll_kernel_load((const void *)table[type][op]) : cudaSuccess;
            if (err != cudaSuccess)
                return err;
        }
    return cudaSuccess;
}

#endif
