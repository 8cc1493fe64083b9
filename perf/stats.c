#include "stats.h"

#include <stdlib.h>

static int compare_doubles(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double perf_median(double *values, int n) {
    qsort(values, (size_t)n, sizeof *values, compare_doubles);
    return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

double perf_combine_times(const double *per_pe, int npes, perf_average_t average) {
    double sum = 0, min = per_pe[0], max = per_pe[0];
    for (int p = 0; p < npes; p++) {
        if (per_pe[p] < 0) {
            return -1.0;
        }
        sum += per_pe[p];
        min = per_pe[p] < min ? per_pe[p] : min;
        max = per_pe[p] > max ? per_pe[p] : max;
    }
    switch (average) {
    case PERF_AVERAGE_PE0:
        return per_pe[0];
    case PERF_AVERAGE_MIN:
        return min;
    case PERF_AVERAGE_MAX:
        return max;
    case PERF_AVERAGE_MEAN:
        break;
    }
    return sum / npes;
}
