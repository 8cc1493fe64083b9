#include "check.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

/* How the values of a call's sources are drawn. */
typedef enum {
    VALUES_BITS,  /* any bits: moved, compared or combined bitwise */
    VALUES_SUM,   /* 0..7: sums stay exact in every type for a node's PEs */
    VALUES_PROD,  /* 1 or 2: products are powers of two */
    VALUES_SMALL, /* -64..63: floating-point min and max */
} values_t;

static bool is_signed_int(symcoll_datatype_t type) {
    return type == SYMCOLL_INT8 || type == SYMCOLL_INT32 || type == SYMCOLL_INT64;
}

static values_t values_for(const perf_call_t *c) {
    if (!perf_op_reduces(c->op)) {
        return VALUES_BITS;
    }
    switch (c->redop) {
    case SYMCOLL_SUM:
        return VALUES_SUM;
    case SYMCOLL_PROD:
        return VALUES_PROD;
    case SYMCOLL_MIN:
    case SYMCOLL_MAX:
        return symcoll_datatype_is_float(c->type) ? VALUES_SMALL : VALUES_BITS;
    default:
        return VALUES_BITS;
    }
}

/* splitmix64 of a counter that is unique per (seed, pe, index < 2^40). */
static uint64_t random_bits(uint64_t seed, int pe, size_t index) {
    uint64_t x = seed * 0x9E3779B97F4A7C15ull + ((uint64_t)pe << 40) + index;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

uint8_t perf_check_byte(uint64_t seed, int pe, size_t index) {
    return (uint8_t)random_bits(seed, pe, index);
}

static int64_t small_value(values_t values, uint64_t bits) {
    switch (values) {
    case VALUES_SUM:
        return (int64_t)(bits % 8);
    case VALUES_PROD:
        return 1 + (int64_t)(bits & 1);
    default:
        return (int64_t)(bits % 128) - 64;
    }
}

uint16_t perf_float_to_half(float f) {
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    uint32_t sign = (x >> 16) & 0x8000u;
    int exponent = (int)((x >> 23) & 0xffu);
    uint32_t mantissa = x & 0x7fffffu;
    if (exponent == 0xff) {
        return (uint16_t)(sign | 0x7c00u | (mantissa ? 0x200u : 0));
    }
    int e = exponent - 127 + 15;
    if (e >= 31) {
        return (uint16_t)(sign | 0x7c00u);
    }
    uint32_t shift = 13;
    uint32_t half = sign | ((uint32_t)e << 10) | (mantissa >> 13);
    if (e <= 0) { /* subnormal: the implicit 1 becomes explicit */
        if (e < -10) {
            return (uint16_t)sign;
        }
        mantissa |= 0x800000u;
        shift = (uint32_t)(14 - e);
        half = sign | (mantissa >> shift);
    }
    uint32_t rest = mantissa & ((1u << shift) - 1), halfway = 1u << (shift - 1);
    if (rest > halfway || (rest == halfway && (half & 1))) {
        half++; /* a carry into the exponent is the correct rounding */
    }
    return (uint16_t)half;
}

uint16_t perf_float_to_bfloat16(float f) {
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    if (isnan(f)) {
        return (uint16_t)((x >> 16) | 0x40u);
    }
    return (uint16_t)((x + 0x7fffu + ((x >> 16) & 1)) >> 16);
}

static uint64_t width_mask(symcoll_datatype_t type) {
    size_t bits = symcoll_datatype_size(type) * 8;
    return bits == 64 ? ~0ull : (1ull << bits) - 1;
}

static uint64_t encode_real(symcoll_datatype_t type, double value) {
    float f = (float)value;
    uint32_t f_bits;
    uint64_t d_bits;
    switch (type) {
    case SYMCOLL_FLOAT16:
        return perf_float_to_half(f);
    case SYMCOLL_BFLOAT16:
        return perf_float_to_bfloat16(f);
    case SYMCOLL_FLOAT32:
        memcpy(&f_bits, &f, sizeof f_bits);
        return f_bits;
    default:
        memcpy(&d_bits, &value, sizeof d_bits);
        return d_bits;
    }
}

/* Bits of element index of team PE pe's source. */
static uint64_t source_bits(const perf_call_t *c, values_t values, uint64_t seed, int pe,
                            size_t index) {
    uint64_t bits = random_bits(seed, pe, index);
    if (values == VALUES_BITS) {
        return bits & width_mask(c->type);
    }
    int64_t v = small_value(values, bits);
    return symcoll_datatype_is_float(c->type) ? encode_real(c->type, (double)v)
                                              : (uint64_t)v & width_mask(c->type);
}

/* An integer element's value: sign-extended for signed types. */
static int64_t int_value(symcoll_datatype_t type, uint64_t bits) {
    size_t width = symcoll_datatype_size(type) * 8;
    if (!is_signed_int(type) || width == 64) {
        return (int64_t)bits;
    }
    uint64_t sign = 1ull << (width - 1);
    return (int64_t)((bits ^ sign) - sign);
}

static uint64_t combine_ints(const perf_call_t *c, uint64_t a, uint64_t b) {
    bool a_less = is_signed_int(c->type) ? int_value(c->type, a) < int_value(c->type, b) : a < b;
    switch (c->redop) {
    case SYMCOLL_SUM:
        return a + b;
    case SYMCOLL_PROD:
        return a * b;
    case SYMCOLL_MIN:
        return a_less ? a : b;
    case SYMCOLL_MAX:
        return a_less ? b : a;
    case SYMCOLL_AND:
        return a & b;
    case SYMCOLL_OR:
        return a | b;
    default:
        return a ^ b;
    }
}

static double combine_reals(symcoll_op_t redop, double a, double b) {
    switch (redop) {
    case SYMCOLL_SUM:
        return a + b;
    case SYMCOLL_PROD:
        return a * b;
    case SYMCOLL_MIN:
        return a < b ? a : b;
    default:
        return a > b ? a : b;
    }
}

/* Bits of element index of the reduction over every PE's source. */
static uint64_t reduced_bits(const perf_call_t *c, values_t values, uint64_t seed, int npes,
                             size_t index) {
    if (symcoll_datatype_is_float(c->type)) {
        double acc = (double)small_value(values, random_bits(seed, 0, index));
        for (int pe = 1; pe < npes; pe++) {
            acc = combine_reals(c->redop, acc,
                                (double)small_value(values, random_bits(seed, pe, index)));
        }
        return encode_real(c->type, acc);
    }
    uint64_t acc = source_bits(c, values, seed, 0, index);
    for (int pe = 1; pe < npes; pe++) {
        acc = combine_ints(c, acc, source_bits(c, values, seed, pe, index));
    }
    return acc & width_mask(c->type);
}

/* Bits of element j of alltoallv's dst on me: the sources' segments for me, packed in team
 * order, each the run of its src that starts after what it sends to lower PEs. */
static uint64_t alltoallv_bits(const perf_call_t *c, values_t values, uint64_t seed, int me,
                               size_t j) {
    const perf_counts_t *m = c->counts;
    int from = 0;
    size_t start = 0;
    while (j >= start + m->matrix[(size_t)from * (size_t)m->npes + (size_t)me]) {
        start += m->matrix[(size_t)from * (size_t)m->npes + (size_t)me];
        from++;
    }
    return source_bits(c, values, seed, from, perf_counts_send_offset(m, from, me) + j - start);
}

static uint64_t expected_bits(const perf_call_t *c, values_t values, uint64_t seed, int me,
                              int npes, size_t j) {
    switch (c->op) {
    case PERF_OP_BROADCAST:
        return source_bits(c, values, seed, c->root, j);
    case PERF_OP_REDUCE:
        return reduced_bits(c, values, seed, npes, j);
    case PERF_OP_FCOLLECT:
        return source_bits(c, values, seed, (int)(j / c->count), j % c->count);
    case PERF_OP_REDUCE_SCATTER: /* my dst is the reduction of every PE's block me */
        return reduced_bits(c, values, seed, npes, (size_t)me * c->count + j);
    case PERF_OP_ALLTOALL: /* block p of my dst is block me of PE p's src */
        return source_bits(c, values, seed, (int)(j / c->count),
                           (size_t)me * c->count + j % c->count);
    case PERF_OP_ALLTOALLV:
        return alltoallv_bits(c, values, seed, me, j);
    case PERF_OP_BARRIER:
    case PERF_NUM_OPS:
        break;
    }
    return 0;
}

void perf_check_fill(void *src, const perf_call_t *c, uint64_t seed, int pe, int npes) {
    size_t elem = symcoll_datatype_size(c->type);
    size_t n = perf_op_src_bytes(c->op, c->count, elem, npes) / elem;
    values_t values = values_for(c);
    for (size_t i = 0; i < n; i++) {
        uint64_t bits = source_bits(c, values, seed, pe, i);
        memcpy((char *)src + i * elem, &bits, elem); /* little-endian host */
    }
}

size_t perf_check_count_wrong(const void *dst, const perf_call_t *c, uint64_t seed, int me,
                              int npes) {
    size_t elem = symcoll_datatype_size(c->type);
    /* alltoallv writes what me receives; the rest of its capacity is not the call's. */
    size_t n = c->counts != NULL ? perf_counts_received(c->counts, me)
                                 : perf_op_dst_bytes(c->op, c->count, elem, npes) / elem;
    values_t values = values_for(c);
    size_t wrong = 0;
    for (size_t j = 0; j < n; j++) {
        uint64_t got = 0;
        memcpy(&got, (const char *)dst + j * elem, elem);
        wrong += got != expected_bits(c, values, seed, me, npes, j);
    }
    return wrong;
}
