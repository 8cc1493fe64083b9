/* Reports to symcoll-run (SYMCOLL_LAUNCHER_FD) when this PE initializes and finalizes. */
#ifndef SYMCOLL_LAUNCHER_REPORT_H
#define SYMCOLL_LAUNCHER_REPORT_H

#ifdef __cplusplus
extern "C" {
#endif

/* event: SYMCOLL_LAUNCH_EVENT_INIT or _FINALIZE (symcoll_launch_protocol.h); nothing when not
 * launched by symcoll-run. */
void symcoll_launcher_report(const char *event);

#ifdef __cplusplus
}
#endif
#endif
