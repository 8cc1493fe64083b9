#include "plot.h"

#include <libgen.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fail.h"

#define PLOT_SCRIPT "symcoll-perf-plot.py"

extern char **environ;

FILE *perf_plot_temp_csv(char *path, size_t len) {
    snprintf(path, len, "%s/symcoll-perf-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (f == NULL) {
        perf_fail("--plot: cannot create a temporary CSV file %s", path);
    }
    return f;
}

static int find_script(char *path, size_t len) {
    const char *from_env = getenv("SYMCOLL_PERF_PLOT");
    if (from_env != NULL && from_env[0] != '\0') {
        snprintf(path, len, "%s", from_env);
        return 0;
    }
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) {
        return perf_fail("--plot: cannot find this executable; set SYMCOLL_PERF_PLOT");
    }
    exe[n] = '\0';
    snprintf(path, len, "%s/%s", dirname(exe), PLOT_SCRIPT);
    return 0;
}

int perf_plot(const char *csv_path, const char *png_path) {
    char script[4200];
    if (find_script(script, sizeof script) != 0) {
        return -1;
    }
    if (access(script, R_OK) != 0) {
        return perf_fail("--plot: no plot script at %s (set SYMCOLL_PERF_PLOT)", script);
    }
    char *argv[] = {"python3", script, (char *)csv_path, (char *)png_path, NULL};
    pid_t pid;
    int rc = posix_spawnp(&pid, "python3", NULL, NULL, argv, environ);
    if (rc != 0) {
        return perf_fail("--plot: cannot start python3: %s", strerror(rc));
    }
    int status;
    if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        return perf_fail("--plot: %s failed (it needs python3 with matplotlib)", script);
    }
    return 0;
}
