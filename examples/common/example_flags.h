/* The command lines of the mini-apps: "-name value" options and "-name" switches. Anything
 * else is refused, so that a mistyped flag or number never runs the defaults in its place;
 * the caller then prints its usage. */
#ifndef SYMCOLL_EXAMPLE_FLAGS_H
#define SYMCOLL_EXAMPLE_FLAGS_H

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline int example_is_one_of(const char *arg, const char *const *names) {
    for (; *names; names++)
        if (strcmp(arg, *names) == 0)
            return 1;
    return 0;
}

/* 1 when every argument is one of options (followed by its value) or of switches (both
 * NULL-terminated); else 0 after saying which argument is wrong. */
static inline int example_flags_valid(int argc, char **argv, const char *const *options,
                                      const char *const *switches) {
    for (int i = 1; i < argc; i++) {
        if (example_is_one_of(argv[i], options) && i + 1 < argc) {
            i++;
        } else if (!example_is_one_of(argv[i], switches)) {
            fprintf(stderr, "%s: %s '%s'\n", argv[0],
                    example_is_one_of(argv[i], options) ? "no value after" : "unknown argument",
                    argv[i]);
            return 0;
        }
    }
    return 1;
}

/* The value of option name, or fallback when it is not given. */
static inline const char *example_option(int argc, char **argv, const char *name,
                                         const char *fallback) {
    for (int i = 1; i + 1 < argc; i++)
        if (strcmp(argv[i], name) == 0)
            return argv[i + 1];
    return fallback;
}

/* Whether switch name is given. */
static inline int example_switch(int argc, char **argv, const char *name) {
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], name) == 0)
            return 1;
    return 0;
}

/* Option name as a whole decimal int into *out (fallback when not given); 1, or 0 after
 * saying what is wrong with its value. */
static inline int example_int_option(int argc, char **argv, const char *name, int fallback,
                                     int *out) {
    const char *text = example_option(argc, argv, name, NULL);
    if (!text) {
        *out = fallback;
        return 1;
    }
    char *end;
    errno = 0;
    long value = strtol(text, &end, 10);
    if (end == text || *end != '\0' || errno != 0 || value < INT_MIN || value > INT_MAX) {
        fprintf(stderr, "%s: %s '%s' is not a whole number\n", argv[0], name, text);
        return 0;
    }
    *out = (int)value;
    return 1;
}

/* Option name as one of choices (NULL-terminated) into *out (fallback when not given); 1, or
 * 0 after naming the option, its value and the choices. */
static inline int example_choice_option(int argc, char **argv, const char *name,
                                        const char *const *choices, const char *fallback,
                                        const char **out) {
    const char *text = example_option(argc, argv, name, fallback);
    if (example_is_one_of(text, choices)) {
        *out = text;
        return 1;
    }
    fprintf(stderr, "%s: %s '%s' is not one of", argv[0], name, text);
    for (; *choices; choices++)
        fprintf(stderr, " %s", *choices);
    fputc('\n', stderr);
    return 0;
}

/* -h or --help anywhere: the caller prints its usage on stdout and ends with status 0. */
static inline int example_wants_help(int argc, char **argv) {
    static const char *const help[] = {"-h", "--help", NULL};
    for (int i = 1; i < argc; i++)
        if (example_is_one_of(argv[i], help))
            return 1;
    return 0;
}

#endif
