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
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <string>
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
// next request of the same size.
//
// How much stays cached follows what the program needs: for each size, the
// most blocks of it that were live at once since the cache was last
// emptied, their bytes summed over the sizes (need: what a step asks of a
// cache that hands blocks back whole), at least kLargeCacheMin and at most
// a quarter of the machine's memory. A size unused for kStale allocations
// and frees stops counting beyond its live blocks, so that shapes that
// change (a new batch size, the sequence lengths of a text loop) do not
// raise the cap for good. The peak of live bytes alone was too little: a
// ResNet-18 forward frees its 103 MB blocks before it needs its 26 MB ones,
// and the cache then gave back the one size to keep the other. A free beyond the cap first gives back
// the sizes least recently used (a job whose sizes differ from the last
// one's, a transformer after a CNN, finds the cache full of sizes it never
// asks for); a block that still does not fit goes back to the system.
// gt_small_alloc_trim (collections under memory pressure, the retry after
// an out-of-memory error) empties the cache and restarts the peaks. Cached
// and live large blocks together thus stay under twice the step's need.
// Before, at most 256 MiB stayed cached and no block over 64 MiB: a
// ResNet-18 forward at batch 32, whose first activations are 103 MB each,
// faulted in about 1 GB afresh every step, a quarter of its time in the
// kernel's page-fault path.
//
// Blocks of kMapMin bytes and more are mapped by hand, aligned to 2 MiB,
// and marked MADV_HUGEPAGE, so that where transparent huge pages are
// enabled for madvise (or always) a fresh block faults in 2 MiB at a time
// instead of 4 KiB (GOTORCH_HUGEPAGES=0 leaves out the advice). The cache
// knows them by address (mapped); the others come from aligned_alloc.
constexpr size_t kPage = 4096;
constexpr size_t kHuge = size_t(2) << 20;
constexpr size_t kMapMin = size_t(4) << 20;
constexpr size_t kLargeCacheMin = size_t(256) << 20;

constexpr uint64_t kStale = 1 << 16;

struct Bin {
  std::vector<void *> blocks;  // cached
  uint64_t used = 0;           // the tick of the last allocation or free of this size
  size_t live = 0, peak = 0;   // blocks handed out, and their most since the last trim
};

struct LargeCache {
  std::mutex mu;
  std::unordered_map<size_t, Bin> free;      // by pages (also the sizes with live blocks only)
  std::unordered_map<void *, size_t> mapped;  // blocks mapped by hand, live or cached: their pages
  size_t bytes = 0;                           // cached
  size_t live = 0;                            // handed out and not given back yet
  size_t peak = 0;                            // the most live since the cache was last emptied
  size_t need = 0;                            // the sum of the bins' peak blocks' bytes
  size_t max_cap = 0;                         // a quarter of the machine's memory
  uint64_t tick = 0;
  uint64_t fresh = 0, reused = 0;  // blocks from the system, blocks from the cache
};

LargeCache &large_cache() {
  static LargeCache *c = [] {  // never destroyed, as small_alloc
    auto *lc = new LargeCache;
    long pages = sysconf(_SC_PHYS_PAGES);
    lc->max_cap = pages > 0 ? size_t(pages) * kPage / 4 : kLargeCacheMin;
    lc->max_cap = std::max(lc->max_cap, kLargeCacheMin);
    return lc;
  }();
  return *c;
}

size_t cap_locked(const LargeCache &lc) { return std::min(std::max(lc.need, kLargeCacheMin), lc.max_cap); }

// add_live_locked counts a block of pages handed out.
void add_live_locked(LargeCache &lc, size_t pages) {
  size_t bytes = pages * kPage;
  lc.live += bytes;
  lc.peak = std::max(lc.peak, lc.live);
  Bin &b = lc.free[pages];
  b.used = ++lc.tick;
  if (++b.live > b.peak) {
    b.peak = b.live;
    lc.need += bytes;
  }
}

// forget_stale_locked lets the sizes unused for kStale ticks stop counting
// beyond their live blocks; it runs every kStale/16 ticks.
void forget_stale_locked(LargeCache &lc) {
  if (lc.tick % (kStale / 16) != 0 || lc.tick < kStale) return;
  for (auto it = lc.free.begin(); it != lc.free.end();) {
    Bin &b = it->second;
    if (b.used + kStale < lc.tick && b.peak > b.live) {
      lc.need -= (b.peak - b.live) * it->first * kPage;
      b.peak = b.live;
    }
    if (b.used + kStale < lc.tick && b.live == 0 && b.blocks.empty()) {
      it = lc.free.erase(it);
    } else {
      ++it;
    }
  }
}

// A block taken out of the cache to go back to the system.
struct Gone {
  void *p;
  size_t bytes;
  bool mapped;
};

void give_back(const Gone &g) {
  if (g.mapped) {
    munmap(g.p, g.bytes);
  } else {
    std::free(g.p);
  }
}

Gone gone_locked(LargeCache &lc, void *p, size_t pages) {
  bool m = lc.mapped.erase(p) > 0;
  return {p, pages * kPage, m};
}

// evict_locked moves the blocks of the least recently used sizes other
// than keep into out until need more bytes fit under the cap, and reports
// whether they do.
bool evict_locked(LargeCache &lc, size_t need, size_t keep, std::vector<Gone> &out) {
  size_t cap = cap_locked(lc);
  if (need > cap) return false;
  while (lc.bytes + need > cap) {
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
    for (void *b : oldest->blocks) out.push_back(gone_locked(lc, b, pages));
    oldest->blocks.clear();
  }
  return true;
}

// map_block maps bytes (whole pages) aligned to a huge page, advised to
// use huge pages unless GOTORCH_HUGEPAGES=0, or returns nullptr.
void *map_block(size_t bytes) {
  static const bool advise = [] {
    const char *v = std::getenv("GOTORCH_HUGEPAGES");
    return v == nullptr || std::string(v) != "0";
  }();
  size_t len = bytes + kHuge;
  void *raw = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return nullptr;
  uintptr_t start = reinterpret_cast<uintptr_t>(raw);
  uintptr_t a = (start + kHuge - 1) & ~(uintptr_t(kHuge) - 1);
  if (a > start) munmap(raw, a - start);
  size_t tail = start + len - (a + bytes);
  if (tail > 0) munmap(reinterpret_cast<void *>(a + bytes), tail);
  // Without transparent huge pages the advice fails with EINVAL; the block
  // is as good, faulted in by pages.
  if (advise) madvise(reinterpret_cast<void *>(a), bytes, MADV_HUGEPAGE);
  return reinterpret_cast<void *>(a);
}

void release_large(void *p) {
  if (p == nullptr) return;
  LargeCache &lc = large_cache();
  std::vector<Gone> evicted;
  Gone self{nullptr, 0, false};
  {
    std::lock_guard<std::mutex> g(lc.mu);
    size_t pages;
    auto m = reinterpret_cast<uintptr_t>(p) % kHuge == 0 ? lc.mapped.find(p) : lc.mapped.end();
    if (m != lc.mapped.end()) {
      pages = m->second;
    } else {
      pages = malloc_usable_size(p) / kPage;
    }
    size_t bytes = pages * kPage;
    lc.live = lc.live > bytes ? lc.live - bytes : 0;
    Bin &lb = lc.free[pages];
    if (lb.live > 0) lb.live--;
    lb.used = ++lc.tick;
    forget_stale_locked(lc);
    if (evict_locked(lc, bytes, pages, evicted)) {
      Bin &b = lc.free[pages];
      b.blocks.push_back(p);
      b.used = ++lc.tick;
      lc.bytes += bytes;
    } else {
      self = gone_locked(lc, p, pages);
    }
  }
  for (const Gone &e : evicted) give_back(e);
  if (self.p != nullptr) give_back(self);
}

void trim_large() {
  std::vector<Gone> all;
  LargeCache &lc = large_cache();
  {
    std::lock_guard<std::mutex> g(lc.mu);
    lc.need = 0;
    for (auto it = lc.free.begin(); it != lc.free.end();) {
      Bin &b = it->second;
      for (void *p : b.blocks) all.push_back(gone_locked(lc, p, it->first));
      b.blocks.clear();
      b.peak = b.live;
      lc.need += b.live * it->first * kPage;
      if (b.live == 0) {
        it = lc.free.erase(it);
      } else {
        ++it;
      }
    }
    lc.bytes = 0;
    lc.peak = lc.live;
  }
  for (const Gone &e : all) give_back(e);
}

// fresh_large gets a block of pages from the system, nullptr if none.
void *fresh_large(size_t pages) {
  LargeCache &lc = large_cache();
  size_t bytes = pages * kPage;
  if (bytes >= kMapMin) {
    void *p = map_block(bytes);
    if (p == nullptr) return nullptr;
    std::lock_guard<std::mutex> g(lc.mu);
    lc.mapped[p] = pages;
    add_live_locked(lc, pages);
    lc.fresh++;
    return p;
  }
  void *p = std::aligned_alloc(kAlign, bytes);
  if (p == nullptr) return nullptr;
  // Counted as release_large will count it, by the size glibc gave it.
  size_t got = malloc_usable_size(p) / kPage;
  std::lock_guard<std::mutex> g(lc.mu);
  add_live_locked(lc, got);
  lc.fresh++;
  return p;
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
      lc.bytes -= pages * kPage;
      add_live_locked(lc, pages);
      lc.reused++;
      return p;
    }
  }
  void *p = fresh_large(pages);
  if (p == nullptr) {
    // The blocks cached for other sizes may be what stands in the way.
    trim_large();
    p = fresh_large(pages);
  }
  // torch/oom.go recognises the message, as libtorch's own allocator's.
  TORCH_CHECK(p != nullptr, "GoTorch CPUAllocator: can't allocate memory: you tried to allocate ", n, " bytes");
  return p;
}

// is_mapped reports whether p is a block that the large cache mapped.
bool is_mapped(void *p) {
  if (reinterpret_cast<uintptr_t>(p) % kHuge != 0) return false;
  LargeCache &lc = large_cache();
  std::lock_guard<std::mutex> g(lc.mu);
  return lc.mapped.count(p) > 0;
}

// release_any frees a block of either kind: the size glibc gave it tells
// which. It is also the raw deleter, through which ideep (oneDNN's
// tensors) gives back blocks it took with raw_allocate.
void release_any(void *p) {
  if (p == nullptr) return;
  if (is_mapped(p) || malloc_usable_size(p) >= 2 * kPage) {
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

// finish_trim_base is glibc's free bytes (mallinfo2's fordblks) right
// after gt_malloc_trim_if last trimmed, lowered whenever fewer are free.
// malloc_trim gives back the pages of free chunks inside the heap but
// leaves the chunks in glibc's bins, so fordblks hardly falls: a heap left
// with 64 MiB of free chunks by a large job was trimmed again at every
// FinishGC, about 1,100 madvise calls each (3 ms) plus the page faults of
// reusing those chunks, on every 30-step repetition of the benchmark's MLP
// after its models jobs (bench/NOTES.md, session 20).
static std::atomic<int64_t> finish_trim_base{0};
static std::atomic<int64_t> finish_trims{0};  // gt_finish_trims
static void *churn_pin = nullptr;             // gt_heap_churn's last block

void gt_malloc_trim_if(int64_t min_free) {
  // Linked with jemalloc (the gotorch_jemalloc build tag) mallinfo2 and
  // malloc_trim are glibc's and see none of the program's memory; jemalloc
  // purges on its own schedule, and pressure collections purge it.
  if (dlsym(RTLD_DEFAULT, "mallctl") != nullptr) return;
  int64_t free_now = static_cast<int64_t>(mallinfo2().fordblks);
  int64_t base = finish_trim_base.load(std::memory_order_relaxed);
  if (free_now < base) {
    finish_trim_base.store(free_now, std::memory_order_relaxed);
    return;
  }
  if (free_now - base < min_free) return;
  malloc_trim(0);
  finish_trims.fetch_add(1, std::memory_order_relaxed);
  finish_trim_base.store(static_cast<int64_t>(mallinfo2().fordblks), std::memory_order_relaxed);
}

int64_t gt_finish_trims(void) { return finish_trims.load(std::memory_order_relaxed); }

void gt_heap_churn(int64_t bytes) {
  // Blocks of 256 KiB stay in glibc's heap (GoTorch's mmap threshold is 32
  // MiB); the last one stays allocated so that the freed ones make one
  // free chunk inside the heap, which malloc_trim cannot shrink away.
  // The blocks first fill the chunks glibc already holds free, so as many
  // bytes again are allocated beyond those.
  const size_t block = 256 << 10;
  int64_t total = bytes + static_cast<int64_t>(mallinfo2().fordblks);
  std::vector<void *> bs;
  for (int64_t n = 0; n < total; n += block) bs.push_back(std::malloc(block));
  void *pin = std::malloc(block);
  for (void *b : bs) std::free(b);
  std::free(churn_pin);
  churn_pin = pin;
}

void gt_small_alloc_trim(void) {
  trim_epoch.fetch_add(1, std::memory_order_relaxed);
  live_cache();
  trim_large();
}

size_t gt_block_usable_size(void *p) {
  if (p == nullptr) return 0;
  if (reinterpret_cast<uintptr_t>(p) % kHuge == 0) {
    LargeCache &lc = large_cache();
    std::lock_guard<std::mutex> g(lc.mu);
    auto m = lc.mapped.find(p);
    if (m != lc.mapped.end()) return m->second * kPage;
  }
  return malloc_usable_size(p);
}

void gt_large_cache_stats(int64_t out[7]) {
  LargeCache &lc = large_cache();
  std::lock_guard<std::mutex> g(lc.mu);
  out[0] = int64_t(lc.bytes);
  out[1] = int64_t(lc.live);
  out[2] = int64_t(lc.peak);
  out[3] = int64_t(cap_locked(lc));
  out[4] = int64_t(lc.fresh);
  out[5] = int64_t(lc.reused);
  out[6] = int64_t(lc.mapped.size());
}

}  // extern "C"
