/* A child for the symcoll-run tests: runs the actions of its command line in order.
     print-pid            prints "pid RANK PID"
     print-env            prints each launch variable as NAME=VALUE, or "NAME unset"
     print-lines          prints two stdout lines, one stderr line, then a partial line on each
     flood                prints stdout lines until killed
     print-args ARGS...   prints "arg ARG" for every remaining argument
     print-ignored        prints "ignored RANK SIG" for every signal it ignores
     print-fds            prints "fd N" for every file descriptor it has open, then
                          "status-fd N" with N from SYMCOLL_LAUNCHER_FD
     fork-sleeper SECONDS starts a process in its group that ignores SIGTERM, prints
                          "pid RANK+100 PID", closes its output and sleeps
     ignore-sigterm       ignores SIGTERM
     sleep SECONDS
     exit CODE            exits with CODE on every rank
     exit-on RANK CODE    exits with CODE on RANK
     signal-on RANK SIG   kills itself with signal SIG on RANK
     report EVENT         tells the launcher EVENT ("init", "finalize") as libsymcoll does,
                          into the pipe of the advertised inode only
   It exits 0 after the last action, and 99 on a bad command line. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define EXIT_BAD_USAGE 99

static int my_rank(void) {
    const char *rank = getenv("SYMCOLL_RANK");
    return rank != NULL ? atoi(rank) : -1;
}

static void print_env(void) {
    static const char *const names[] = {
        "SYMCOLL_RANK",    "SYMCOLL_SIZE",     "SYMCOLL_LOCAL_RANK",      "SYMCOLL_LOCAL_SIZE",
        "SYMCOLL_NODE_ID", "SYMCOLL_UNIQUEID", "SYMCOLL_BOOTSTRAP_SOCKET"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const char *value = getenv(names[i]);
        if (value != NULL)
            printf("%s=%s\n", names[i], value);
        else
            printf("%s unset\n", names[i]);
    }
}

static void print_lines(void) {
    printf("out line 1\n");
    fflush(stdout);
    fprintf(stderr, "err line 1\n");
    printf("out line 2\npartial-out");
    fflush(stdout);
    fprintf(stderr, "partial-err");
}

static void flood(void) {
    for (unsigned long line = 0;; line++)
        printf("flood line %lu\n", line);
}

static void print_ignored(void) {
    /* The standard signals; the real-time ones start at SIGRTMIN. */
    for (int signal_number = 1; signal_number < SIGRTMIN; signal_number++) {
        struct sigaction action;
        if (sigaction(signal_number, NULL, &action) == 0 && action.sa_handler == SIG_IGN)
            printf("ignored %d %d\n", my_rank(), signal_number);
    }
}

static void print_fds(void) {
    DIR *fds = opendir("/proc/self/fd");
    if (fds == NULL) {
        perror("launcher_child: /proc/self/fd");
        exit(EXIT_BAD_USAGE);
    }
    for (struct dirent *entry; (entry = readdir(fds)) != NULL;)
        if (entry->d_name[0] != '.' && atoi(entry->d_name) != dirfd(fds))
            printf("fd %s\n", entry->d_name);
    closedir(fds);
    const char *status_fd = getenv("SYMCOLL_LAUNCHER_FD");
    printf("status-fd %s\n", status_fd != NULL ? status_fd : "unset");
}

/* Its output goes to /dev/null so that the test's pipes end with the launcher; its parent
   returns once it printed, so the launcher cannot kill it first. */
static void fork_sleeper(unsigned seconds) {
    int printed[2];
    if (pipe(printed) != 0) {
        perror("launcher_child: pipe");
        exit(EXIT_BAD_USAGE);
    }
    fflush(stdout);
    if (fork() != 0) {
        char byte;
        close(printed[1]);
        ssize_t ignored = read(printed[0], &byte, 1);
        (void)ignored;
        close(printed[0]);
        return;
    }
    close(printed[0]);
    signal(SIGTERM, SIG_IGN);
    printf("pid %d %d\n", 100 + my_rank(), (int)getpid());
    fflush(stdout);
    int null_fd = open("/dev/null", O_WRONLY);
    dup2(null_fd, STDOUT_FILENO);
    dup2(null_fd, STDERR_FILENO);
    close(printed[1]);
    sleep(seconds);
    _exit(0);
}

/* Fails unless SYMCOLL_LAUNCHER_FD is the pipe SYMCOLL_LAUNCHER_FD_INODE names, which
   libsymcoll requires before it reports. */
static void report(const char *event) {
    const char *fd = getenv("SYMCOLL_LAUNCHER_FD");
    const char *inode = getenv("SYMCOLL_LAUNCHER_FD_INODE");
    struct stat st;
    char line[64];
    int len = snprintf(line, sizeof line, "%d %s\n", my_rank(), event);
    if (fd == NULL || inode == NULL || fstat(atoi(fd), &st) != 0 || !S_ISFIFO(st.st_mode) ||
        st.st_ino != strtoull(inode, NULL, 10) || write(atoi(fd), line, (size_t)len) != len) {
        fprintf(stderr, "launcher_child: cannot report %s\n", event);
        exit(EXIT_BAD_USAGE);
    }
}

static const char *take_argument(int argc, char **argv, int *next) {
    if (*next >= argc) {
        fprintf(stderr, "launcher_child: %s needs an argument\n", argv[*next - 1]);
        exit(EXIT_BAD_USAGE);
    }
    return argv[(*next)++];
}

int main(int argc, char **argv) {
    int next = 1;
    while (next < argc) {
        const char *action = argv[next++];
        if (strcmp(action, "print-pid") == 0) {
            printf("pid %d %d\n", my_rank(), (int)getpid());
        } else if (strcmp(action, "print-env") == 0) {
            print_env();
        } else if (strcmp(action, "print-lines") == 0) {
            print_lines();
        } else if (strcmp(action, "flood") == 0) {
            flood();
        } else if (strcmp(action, "print-args") == 0) {
            while (next < argc)
                printf("arg %s\n", argv[next++]);
        } else if (strcmp(action, "print-ignored") == 0) {
            print_ignored();
        } else if (strcmp(action, "print-fds") == 0) {
            print_fds();
        } else if (strcmp(action, "fork-sleeper") == 0) {
            fork_sleeper((unsigned)atoi(take_argument(argc, argv, &next)));
        } else if (strcmp(action, "ignore-sigterm") == 0) {
            signal(SIGTERM, SIG_IGN);
        } else if (strcmp(action, "sleep") == 0) {
            sleep((unsigned)atoi(take_argument(argc, argv, &next)));
        } else if (strcmp(action, "exit") == 0) {
            exit(atoi(take_argument(argc, argv, &next)));
        } else if (strcmp(action, "exit-on") == 0) {
            int rank = atoi(take_argument(argc, argv, &next));
            int code = atoi(take_argument(argc, argv, &next));
            if (rank == my_rank())
                exit(code);
        } else if (strcmp(action, "report") == 0) {
            report(take_argument(argc, argv, &next));
        } else if (strcmp(action, "signal-on") == 0) {
            int rank = atoi(take_argument(argc, argv, &next));
            int signal_number = atoi(take_argument(argc, argv, &next));
            if (rank == my_rank())
                kill(getpid(), signal_number);
        } else {
            fprintf(stderr, "launcher_child: unknown action '%s'\n", action);
            return EXIT_BAD_USAGE;
        }
        fflush(stdout);
    }
    return 0;
}
