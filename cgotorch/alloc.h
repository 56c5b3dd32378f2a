/* alloc.h: GoTorch's CPU allocator (allocator.cc) beyond what cgotorch.h
 * declares, apart from it so that a change here recompiles only
 * allocator.cc, not the generated shards. */
#ifndef GOTORCH_CGOTORCH_ALLOC_H_
#define GOTORCH_CGOTORCH_ALLOC_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* gt_malloc_trim_if gives free heap memory back to the system, as
 * gt_malloc_trim, but only when glibc holds at least min_free bytes free,
 * and without emptying the allocator's caches of freed blocks: the end of
 * a loop (FinishGC) that would otherwise make the next loop fault its
 * memory in again. */
void gt_malloc_trim_if(int64_t min_free);

#ifdef __cplusplus
}
#endif

#endif
