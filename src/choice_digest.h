/* What steers this PE's choice of collective kernels and grids besides the job itself, as one
 * number: init compares it across PEs, since every PE must launch the same kernel and grid
 * (their blocks synchronize pairwise) and would otherwise wait for blocks that never come. */
#ifndef SYMCOLL_CHOICE_DIGEST_H
#define SYMCOLL_CHOICE_DIGEST_H

#include <stdint.h>
#include "tuning_file.h"

#ifdef __cplusplus
extern "C" {
#endif

/* FNV-1a of the SYMCOLL_ALGO_* values (in any case) and of the tuning file's signature and
 * rows (not its path: each PE may load its own copy). */
uint64_t symcoll_choice_digest(const symcoll_tuning_file_t *file);

#ifdef __cplusplus
}
#endif
#endif
