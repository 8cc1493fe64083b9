#include "topology_text.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "symcoll.h"

/* Longer than any entry of the text ("NV<k>", a PE count): a longer word is cut, which no
 * count or SAME survives. */
#define WORD_BYTES 16
#define SPACE " \t\r\n"

/* The word of text at *pos into word (cut to WORD_BYTES - 1), *pos past it; false at the end. */
static bool next_word(const char *text, size_t *pos, char *word) {
    *pos += strspn(text + *pos, SPACE);
    size_t len = strcspn(text + *pos, SPACE);
    if (len == 0) {
        return false;
    }
    size_t kept = len < WORD_BYTES - 1 ? len : WORD_BYTES - 1;
    memcpy(word, text + *pos, kept);
    word[kept] = '\0';
    *pos += len;
    return true;
}

/* The count at the start of text, *pos past it. */
static int read_count(const char *text, size_t *pos) {
    char word[WORD_BYTES];
    if (!next_word(text, pos, word)) {
        return 0;
    }
    char *end;
    long n = strtol(word, &end, 10);
    return *end == '\0' && n >= 1 && n <= SYMCOLL_MAX_PES ? (int)n : 0;
}

int perf_topology_n_pes(const char *text) {
    size_t pos = 0;
    return read_count(text, &pos);
}

int perf_topology_pes_per_gpu(const char *text) {
    size_t pos = 0;
    int n = read_count(text, &pos), most = 1;
    char word[WORD_BYTES];
    for (int row = 0; row < n; row++) {
        int on_gpu = 1;
        for (int col = 0; col < n && next_word(text, &pos, word); col++) {
            on_gpu += strcmp(word, "SAME") == 0;
        }
        most = on_gpu > most ? on_gpu : most;
    }
    return most;
}

void perf_print_topology(FILE *out, const char *text, const char *prefix) {
    while (*text != '\0') {
        size_t len = strcspn(text, "\n");
        fprintf(out, "%s%.*s\n", prefix, (int)len, text);
        text += len + (text[len] == '\n');
    }
}
