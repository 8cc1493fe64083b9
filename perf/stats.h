/* How repeated timings and the PEs' times become the one reported time. */
#ifndef SYMCOLL_PERF_STATS_H
#define SYMCOLL_PERF_STATS_H

#include "args.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Median of values[0..n) (n > 0; the mean of the middle two for even n). Sorts values. */
double perf_median(double *values, int n);

/* Combines one time per PE as -a asks: PE p's is times[p * stride] (stride: the values each
 * PE gathered, so a gathered table needs no transposing). A negative time means "not
 * measured" and makes the result negative. */
double perf_combine_times(const double *times, int npes, size_t stride, perf_average_t average);

#ifdef __cplusplus
}
#endif
#endif
