/* Reports to symcoll-run (SYMCOLL_LAUNCHER_FD) when this PE initializes and finalizes. */
#ifndef SYMCOLL_LAUNCHER_REPORT_H
#define SYMCOLL_LAUNCHER_REPORT_H

#ifdef __cplusplus
extern "C" {
#endif

/* event: "init" or "finalize"; nothing when not launched by symcoll-run. */
void symcoll_launcher_report(const char *event);

#ifdef __cplusplus
}
#endif
#endif
