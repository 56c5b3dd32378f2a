/* countalloc_api.h: the C interface of countalloc.h (see there). */
#ifndef BENCH_COUNTALLOC_API_H_
#define BENCH_COUNTALLOC_API_H_
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif
void bench_count_install(void);     /* count from now on */
void bench_count_reset_peak(void);  /* the peak starts again at the live count */
int64_t bench_count_peak(void);     /* bytes */
int64_t bench_count_live(void);     /* bytes */
int bench_count_installed(void);
#ifdef __cplusplus
}
#endif
#endif
