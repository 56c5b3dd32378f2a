/* alloc.h: GoTorch's CPU allocator (allocator.cc) beyond what cgotorch.h
 * declares, apart from it so that a change here recompiles only
 * allocator.cc, not the generated shards. */
#ifndef GOTORCH_CGOTORCH_ALLOC_H_
#define GOTORCH_CGOTORCH_ALLOC_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* gt_malloc_trim_if gives free heap memory back to the system, as
 * gt_malloc_trim, but only when glibc holds at least min_free bytes more
 * free than just after its last trim (or than since, if fewer), and
 * without emptying the allocator's caches of freed blocks: the end of a
 * loop (FinishGC) that would otherwise make the next loop fault its
 * memory in again. */
void gt_malloc_trim_if(int64_t min_free);

/* gt_finish_trims is how many times gt_malloc_trim_if trimmed. */
int64_t gt_finish_trims(void);

/* gt_heap_churn (for tests) leaves about bytes more free chunks inside
 * glibc's heap, below one block it keeps allocated until the next call. */
void gt_heap_churn(int64_t bytes);

/* gt_large_cache_stats fills out with the state of the allocator's cache
 * of large blocks (allocator.cc, "Larger blocks"): bytes cached, bytes
 * live (handed out, not given back), their peak since the cache was last
 * emptied, the cap on cached bytes, blocks taken from the system, blocks
 * served from the cache, and blocks mapped by hand (live or cached). */
void gt_large_cache_stats(int64_t out[7]);

/* gt_block_usable_size is the usable size of a block that GoTorch's CPU
 * allocator handed out: malloc_usable_size for the blocks that come from
 * malloc, the mapped length for the large blocks it maps by hand (4 MiB
 * and more), on which malloc_usable_size would read outside the mapping.
 * The benchmark's counting allocator (bench/cxx/countalloc.h) finds it as
 * a weak symbol. */
size_t gt_block_usable_size(void *p);

#ifdef __cplusplus
}
#endif

#endif
