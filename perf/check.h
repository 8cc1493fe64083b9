/* Correctness check: fresh random data for every PE and the CPU reference of the result.
 * Every PE can compute every other PE's data from (seed, pe), so no data is exchanged. */
#ifndef SYMCOLL_PERF_CHECK_H
#define SYMCOLL_PERF_CHECK_H

#include <stddef.h>
#include <stdint.h>
#include "ops.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Fills the source buffer (host memory, perf_op_src_bytes of call c) of team PE pe for the
 * check round seed. Values are chosen so that the reference is exact: small integers for
 * sums, 1 or 2 for products, random bits where bits are only moved or compared. */
void perf_check_fill(void *src, const perf_call_t *c, uint64_t seed, int pe, int npes);

/* The number of elements of dst (host copy of team PE me's destination, perf_call_dst_bytes
 * of call c) that differ, bit for bit, from the result of c on the data of perf_check_fill;
 * for alltoallv, of the elements me receives by c->counts. */
size_t perf_check_count_wrong(const void *dst, const perf_call_t *c, uint64_t seed, int me,
                              int npes);

/* Byte index of team PE pe's source in round seed: what perf_check_fill writes for a uint8
 * source that is moved, not reduced (--op moe lays its tokens out with it). */
uint8_t perf_check_byte(uint64_t seed, int pe, size_t index);

/* IEEE binary16 and bfloat16 bits of f, rounded to nearest even. */
uint16_t perf_float_to_half(float f);
uint16_t perf_float_to_bfloat16(float f);

#ifdef __cplusplus
}
#endif
#endif
