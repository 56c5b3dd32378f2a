//go:build !gotorch_prebuilt

// allocator.cc: a caching allocator for the data of CPU tensors.
//
// libtorch's default CPU allocator calls posix_memalign and free for every
// tensor. glibc serves aligned requests by carving a larger block and
// freeing its ends, and a tensor that dies long after it was made (as a
// garbage-collected one does) is freed into a heap fragmented by those
// ends: a 4×4 add spent a quarter of its time in glibc. This allocator keeps
// freed blocks of up to kMaxSmall bytes in per-thread lists, one per 64-byte
// size class, and hands them back without calling glibc. Larger blocks go
// to one cache for the process, by size in pages (see LargeCache below).
//
// The blocks themselves come from the C allocator (aligned_alloc), so a
// block freed on a thread that does not cache it (list full, or the thread
// is exiting) simply goes back with free. Each thread caches at most
// kCacheBytes per size class (4 MiB in all). gt_small_alloc_trim empties the
// calling thread's cache and tells the other threads to empty theirs at
// their next allocation or free; a thread's cache is emptied when it exits.
// Cached blocks are not checked for double frees as glibc's are; GoTorch's
// Go side never frees a tensor twice.
//
// Unlike libtorch's default allocator, this one does not report to the
// autograd profiler's memory tracking. GOTORCH_SMALL_ALLOC=0 leaves
// libtorch's allocator in place.
#include <c10/core/Allocator.h>
#include <c10/core/CPUAllocator.h>
#include <c10/util/Exception.h>
#include <torch/version.h>
#include <dlfcn.h>
#include <malloc.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "alloc.h"
#include "cgotorch.h"

namespace {

constexpr size_t kAlign = 64;           // libtorch's CPU alignment (gAlignment)
constexpr size_t kClasses = 64;         // size classes of kAlign bytes each
constexpr size_t kMaxSmall = kAlign * kClasses;  // 4 KiB
constexpr size_t kCacheBytes = 64 << 10;         // per class and thread

struct Block {
  Block *next;
};

// trim_epoch counts gt_small_alloc_trim calls; a thread whose cache saw an
// older value empties it.
std::atomic<uint64_t> trim_epoch{0};

// cache_dead is set when the thread's cache has been destroyed at thread
// exit; a plain thread_local bool stays readable after that.
thread_local bool cache_dead = false;

struct ThreadCache {
  Block *head[kClasses + 1] = {};
  uint32_t count[kClasses + 1] = {};
  uint64_t epoch = 0;

  void flush() {
    for (size_t c = 1; c <= kClasses; c++) {
      while (Block *b = head[c]) {
        head[c] = b->next;
        std::free(b);
      }
      count[c] = 0;
    }
  }
  ~ThreadCache() {
    cache_dead = true;
    flush();
  }
};

thread_local ThreadCache cache;

// live_cache returns the calling thread's cache, emptied first if a trim
// happened since it was last used, or nullptr once the thread is exiting.
inline ThreadCache *live_cache() {
  if (cache_dead) return nullptr;
  ThreadCache &tc = cache;
  uint64_t e = trim_epoch.load(std::memory_order_relaxed);
  if (tc.epoch != e) {
    tc.flush();
    tc.epoch = e;
  }
  return &tc;
}

void release(void *p) {
  if (p == nullptr) return;
  // Blocks are allocated with a size of whole classes, so the usable size
  // names a class the block can serve (glibc may round it up further).
  size_t c = malloc_usable_size(p) / kAlign;
  ThreadCache *tc = live_cache();
  if (tc == nullptr || c == 0 || c > kClasses || tc->count[c] * c * kAlign >= kCacheBytes ||
      reinterpret_cast<uintptr_t>(p) % kAlign != 0) {
    std::free(p);
    return;
  }
  Block *b = static_cast<Block *>(p);
  b->next = tc->head[c];
  tc->head[c] = b;
  tc->count[c]++;
}

// Larger blocks: one cache for the process, a list of free blocks per
// size in pages. A step's tensors have the same sizes every step, and
// GoTorch frees a dropped tensor when its step is collected rather than at
// its last use, so the tensors that outlive a step (the loss, the logits)
// sit in glibc's heap between the holes of the large ones that died, and
// with GC() pacing its collections (SetGCPercent) glibc grew the heap by
// 1.1 MB a step, every page of it faulted in fresh (the MLP step took 4 ms
// instead of 2.6). Blocks served from here are reused whole, warm, by the
// next request of the same size. At most kLargeCacheBytes stay cached:
// a free beyond that first gives back the sizes least recently used (a job
// whose sizes differ from the last one's, a transformer after a CNN, finds
// the cache full of sizes it never asks for), and gt_small_alloc_trim
// empties it.
constexpr size_t kPage = 4096;
constexpr size_t kLargeCacheBytes = size_t(256) << 20;

struct Bin {
  std::vector<void *> blocks;
  uint64_t used = 0;  // the tick of the last allocation or free of this size
};

struct LargeCache {
  std::mutex mu;
  std::unordered_map<size_t, Bin> free;  // by pages
  size_t bytes = 0;
  uint64_t tick = 0;
};

LargeCache &large_cache() {
  static LargeCache *c = new LargeCache;  // never destroyed, as small_alloc
  return *c;
}

// evict_locked moves the blocks of the least recently used sizes other
// than keep into out until need more bytes fit under the cap, and reports
// whether they do.
bool evict_locked(LargeCache &lc, size_t need, size_t keep, std::vector<void *> &out) {
  while (lc.bytes + need > kLargeCacheBytes) {
    Bin *oldest = nullptr;
    size_t pages = 0;
    for (auto &kv : lc.free) {
      if (kv.first != keep && !kv.second.blocks.empty() && (oldest == nullptr || kv.second.used < oldest->used)) {
        oldest = &kv.second;
        pages = kv.first;
      }
    }
    if (oldest == nullptr) return false;
    lc.bytes -= oldest->blocks.size() * pages * kPage;
    out.insert(out.end(), oldest->blocks.begin(), oldest->blocks.end());
    oldest->blocks.clear();
  }
  return true;
}

void release_large(void *p) {
  if (p == nullptr) return;
  size_t pages = malloc_usable_size(p) / kPage;
  LargeCache &lc = large_cache();
  std::vector<void *> evicted;
  bool cached = false;
  {
    std::lock_guard<std::mutex> g(lc.mu);
    if (pages * kPage <= kLargeCacheBytes / 4 && evict_locked(lc, pages * kPage, pages, evicted)) {
      Bin &b = lc.free[pages];
      b.blocks.push_back(p);
      b.used = ++lc.tick;
      lc.bytes += pages * kPage;
      cached = true;
    }
  }
  for (void *e : evicted) std::free(e);
  if (!cached) std::free(p);
}

void trim_large() {
  std::vector<void *> all;
  LargeCache &lc = large_cache();
  {
    std::lock_guard<std::mutex> g(lc.mu);
    for (auto &kv : lc.free) all.insert(all.end(), kv.second.blocks.begin(), kv.second.blocks.end());
    lc.free.clear();
    lc.bytes = 0;
  }
  for (void *p : all) std::free(p);
}

void *alloc_large(size_t n) {
  size_t pages = (n + kPage - 1) / kPage;
  LargeCache &lc = large_cache();
  {
    std::lock_guard<std::mutex> g(lc.mu);
    auto it = lc.free.find(pages);
    if (it != lc.free.end() && !it->second.blocks.empty()) {
      void *p = it->second.blocks.back();
      it->second.blocks.pop_back();
      it->second.used = ++lc.tick;
      lc.bytes -= pages * kPage;
      return p;
    }
  }
  void *p = std::aligned_alloc(kAlign, pages * kPage);
  if (p == nullptr) {
    // The blocks cached for other sizes may be what stands in the way.
    trim_large();
    p = std::aligned_alloc(kAlign, pages * kPage);
  }
  // torch/oom.go recognises the message, as libtorch's own allocator's.
  TORCH_CHECK(p != nullptr, "GoTorch CPUAllocator: can't allocate memory: you tried to allocate ", n, " bytes");
  return p;
}


// release_any frees a block of either kind: the size glibc gave it tells
// which. It is also the raw deleter, through which ideep (oneDNN's
// tensors) gives back blocks it took with raw_allocate.
void release_any(void *p) {
  if (p == nullptr) return;
  if (malloc_usable_size(p) >= 2 * kPage) {
    release_large(p);
  } else {
    release(p);
  }
}

// libtorch 2.3 made Allocator::allocate non-const and added the pure
// virtual copy_data (pytorch#120969, #121080).
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 3)
#define GT_ALLOCATE_CONST
#define GT_ALLOCATOR_COPY_DATA 1
#else
#define GT_ALLOCATE_CONST const
#define GT_ALLOCATOR_COPY_DATA 0
#endif

class SmallCPUAllocator final : public c10::Allocator {
 public:
  explicit SmallCPUAllocator(c10::Allocator *fallback) : fallback_(fallback) {}

  c10::DataPtr allocate(size_t n) GT_ALLOCATE_CONST override {
    if (n == 0) return fallback_->allocate(n);
    if (n > kMaxSmall) {
      void *p = alloc_large(n);
      return {p, p, &release_large, c10::Device(c10::DeviceType::CPU)};
    }
    size_t c = (n + kAlign - 1) / kAlign;
    ThreadCache *tc = live_cache();
    void *p = nullptr;
    if (tc != nullptr && tc->head[c] != nullptr) {
      Block *b = tc->head[c];
      tc->head[c] = b->next;
      tc->count[c]--;
      p = b;
    } else {
      p = std::aligned_alloc(kAlign, c * kAlign);
      TORCH_CHECK(p != nullptr, "GoTorch CPUAllocator: can't allocate memory: you tried to allocate ", n, " bytes");
    }
    return {p, p, &release, c10::Device(c10::DeviceType::CPU)};
  }

  c10::DeleterFnPtr raw_deleter() const override { return &release_any; }

#if GT_ALLOCATOR_COPY_DATA
  void copy_data(void *dest, const void *src, std::size_t count) const override {
    default_copy_data(dest, src, count);
  }
#endif

 private:
  c10::Allocator *fallback_;
};

SmallCPUAllocator *small_alloc() {
  // Never destroyed: libtorch may still allocate while static objects are
  // torn down at exit.
  static SmallCPUAllocator *alloc = new SmallCPUAllocator(c10::GetDefaultCPUAllocator());
  return alloc;
}

}  // namespace

extern "C" {

void gt_small_alloc_install(int on) {
  // Priority 1 replaces libtorch's default (priority 0), and lets the
  // benchmarks switch between the two.
  c10::SetCPUAllocator(on ? static_cast<c10::Allocator *>(small_alloc())
                          : c10::GetDefaultCPUAllocator(),
                       /*priority=*/1);
}

int gt_small_alloc_installed(void) { return c10::GetCPUAllocator() == small_alloc() ? 1 : 0; }

void gt_malloc_trim_if(int64_t min_free) {
  // Linked with jemalloc (the gotorch_jemalloc build tag) mallinfo2 and
  // malloc_trim are glibc's and see none of the program's memory; jemalloc
  // purges on its own schedule, and pressure collections purge it.
  if (dlsym(RTLD_DEFAULT, "mallctl") != nullptr) return;
  struct mallinfo2 mi = mallinfo2();
  if (static_cast<int64_t>(mi.fordblks) >= min_free) malloc_trim(0);
}

void gt_small_alloc_trim(void) {
  trim_epoch.fetch_add(1, std::memory_order_relaxed);
  live_cache();
  trim_large();
}

}  // extern "C"
