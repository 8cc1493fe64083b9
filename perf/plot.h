/* --plot: runs symcoll-perf-plot.py (python3, matplotlib) on the sweep's CSV. */
#ifndef SYMCOLL_PERF_PLOT_H
#define SYMCOLL_PERF_PLOT_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A new temporary CSV file, for --plot without --csv; its name goes to path. NULL on error
 * (reported). */
FILE *perf_plot_temp_csv(char *path, size_t len);

/* Plots csv_path into png_path. The script is $SYMCOLL_PERF_PLOT, else
 * symcoll-perf-plot.py next to this executable. 0, or -1 (reported). */
int perf_plot(const char *csv_path, const char *png_path);

#ifdef __cplusplus
}
#endif
#endif
