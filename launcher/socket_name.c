#include "launcher.h"

#include <unistd.h>

void create_socket_name(char name[SOCKET_NAME_MAX]) {
    unsigned long long nonce = 0;
    FILE *random = fopen("/dev/urandom", "rb");
    if (random == NULL || fread(&nonce, sizeof nonce, 1, random) != 1)
        nonce = (unsigned long long)monotonic_seconds() * 1000003ull;
    if (random != NULL)
        fclose(random);
    snprintf(name, SOCKET_NAME_MAX, "symcoll-run.%ld.%016llx", (long)getpid(), nonce);
}
