/* symcoll_tuning_override's process-wide setting, read on every collective's enqueue path. */
#ifndef SYMCOLL_TUNING_OVERRIDE_H
#define SYMCOLL_TUNING_OVERRIDE_H

#include <stdbool.h>
#include "tuning.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Puts the override of q->collective, if one is set, into q->forced, q->forced_blocks and
 * q->forced_threads; returns whether one was. */
bool symcoll_tuning_override_apply(symcoll_tuning_query_t *q);

#ifdef __cplusplus
}
#endif

#endif
