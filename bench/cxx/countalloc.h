// countalloc.h: the benchmark harness's count of live CPU tensor memory,
// the same code in every worker: compiled into the C++ worker, into
// bench/out/libcountalloc.so for the Python worker (ctypes), and into
// package bench/internal/countalloc for the Go and Go+ workers. Include it
// in one translation unit per program: it defines the C functions.
//
// bench_count_install wraps whatever CPU allocator the process has
// (libtorch's default in C++ and Python, GoTorch's caching one in Go) in
// one that adds the size of every block it hands out (malloc_usable_size,
// or GoTorch's gt_block_usable_size where it is linked)
// to a live count and subtracts it when the block is freed, and keeps the
// peak. Blocks allocated before the install keep their own deleter and are
// never counted, so the count stays exact. It counts tensor storage only:
// what autograd saves and what optimizers keep are tensors too; blocks that
// an allocator caches after a free are not live.
#ifndef BENCH_COUNTALLOC_H_
#define BENCH_COUNTALLOC_H_

#include <c10/core/Allocator.h>
#include <c10/core/CPUAllocator.h>
#include <malloc.h>
#include <torch/version.h>

#include <atomic>
#include <cstdint>
#include <mutex>

#include "countalloc_api.h"

// GoTorch's allocator maps its blocks of 4 MiB and more by hand, where
// malloc_usable_size would read a malloc header outside the mapping; in the
// Go workers it defines gt_block_usable_size, which knows both kinds. The
// C++ and Python workers do not have it: a weak reference is then null.
extern "C" size_t gt_block_usable_size(void *p) __attribute__((weak));

namespace bench_count {

inline size_t usable(void *p) {
  return gt_block_usable_size != nullptr ? gt_block_usable_size(p) : malloc_usable_size(p);
}

inline std::atomic<int64_t> live{0};
inline std::atomic<int64_t> peak{0};

inline void add(int64_t n) {
  int64_t v = live.fetch_add(n) + n;
  int64_t p = peak.load();
  while (v > p && !peak.compare_exchange_weak(p, v)) {
  }
}

// A deleter gets only the block, so each inner deleter gets a counting
// one of its own: a slot of a fixed table (allocators have one or two).
constexpr int kSlots = 8;
inline std::atomic<c10::DeleterFnPtr> inner[kSlots];

template <int I>
void del(void *p) {
  if (p != nullptr) live.fetch_sub(static_cast<int64_t>(usable(p)));
  inner[I].load()(p);
}

inline c10::DeleterFnPtr counting[kSlots] = {&del<0>, &del<1>, &del<2>, &del<3>,
                                             &del<4>, &del<5>, &del<6>, &del<7>};

// wrap returns the counting deleter for d, or nullptr when the table is full.
inline c10::DeleterFnPtr wrap(c10::DeleterFnPtr d) {
  static std::mutex mu;
  std::lock_guard<std::mutex> g(mu);
  for (int i = 0; i < kSlots; i++) {
    if (inner[i].load() == d) return counting[i];
  }
  for (int i = 0; i < kSlots; i++) {
    if (inner[i].load() == nullptr) {
      inner[i].store(d);
      return counting[i];
    }
  }
  return nullptr;
}

#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 3)
#define BENCH_ALLOCATE_CONST
#define BENCH_COPY_DATA 1
#else
#define BENCH_ALLOCATE_CONST const
#define BENCH_COPY_DATA 0
#endif

class Counting final : public c10::Allocator {
 public:
  explicit Counting(c10::Allocator *in) : in_(in) {}

  c10::DataPtr allocate(size_t n) BENCH_ALLOCATE_CONST override {
    c10::DataPtr dp = in_->allocate(n);
    void *data = dp.get();
    if (data == nullptr || dp.get_context() != data) return dp;
    c10::DeleterFnPtr d = wrap(dp.get_deleter());
    if (d == nullptr) return dp;
    c10::Device dev = dp.device();
    dp.release_context();
    add(static_cast<int64_t>(usable(data)));
    return {data, data, d, dev};
  }

  c10::DeleterFnPtr raw_deleter() const override { return wrap(in_->raw_deleter()); }

#if BENCH_COPY_DATA
  void copy_data(void *dest, const void *src, std::size_t count) const override {
    default_copy_data(dest, src, count);
  }
#endif

 private:
  c10::Allocator *in_;
};

}  // namespace bench_count

extern "C" {

void bench_count_install(void) {
  static bench_count::Counting *c = new bench_count::Counting(c10::GetCPUAllocator());  // never destroyed
  c10::SetCPUAllocator(c, /*priority=*/100);
}

void bench_count_reset_peak(void) { bench_count::peak.store(bench_count::live.load()); }
int64_t bench_count_peak(void) { return bench_count::peak.load(); }
int64_t bench_count_live(void) { return bench_count::live.load(); }
int bench_count_installed(void) {
  return dynamic_cast<bench_count::Counting *>(c10::GetCPUAllocator()) != nullptr;
}

}  // extern "C"

#endif  // BENCH_COUNTALLOC_H_
