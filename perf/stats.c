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

double perf_combine_times(const double *times, int npes, size_t stride, perf_average_t average) {
    double sum = 0, min = times[0], max = times[0];
    for (int p = 0; p < npes; p++) {
        double t = times[(size_t)p * stride];
        if (t < 0) {
            return -1.0;
        }
        sum += t;
        min = t < min ? t : min;
        max = t > max ? t : max;
    }
    switch (average) {
    case PERF_AVERAGE_PE0:
        return times[0];
    case PERF_AVERAGE_MIN:
        return min;
    case PERF_AVERAGE_MAX:
        return max;
    case PERF_AVERAGE_MEAN:
        break;
    }
    return sum / npes;
}
