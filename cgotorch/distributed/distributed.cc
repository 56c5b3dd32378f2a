//go:build !gotorch_prebuilt

// distributed.cc: c10d (stores, ProcessGroupGloo, collectives) and c10d's
// gradient Reducer for DDP, behind the C ABI of distributed.h.
#include "internal.h"
#include "distributed.h"
#include "group.h"

#include <utility>
#include <torch/csrc/autograd/engine.h>
#include <torch/csrc/autograd/function.h>
#include <torch/csrc/autograd/variable.h>
#include <torch/csrc/distributed/c10d/FileStore.hpp>
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#include <torch/csrc/distributed/c10d/comm.hpp>
#include <torch/csrc/distributed/c10d/reducer.hpp>

#include <algorithm>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <sstream>
#include <thread>
#include <type_traits>
#include <unordered_map>

using gotorch::guard;
using gotorch::make_error;
using gotorch::T;
using gtdist::fail;

struct gt_dist_store_s {
  c10::intrusive_ptr<c10d::Store> s;
  std::string desc;
};

struct gt_dist_work_s {
  c10::intrusive_ptr<c10d::Work> w;
  gt_dist_pg pg = nullptr;
  std::string op;
  int64_t seq = 0;
  std::function<void()> after;  // runs once after a successful wait
  bool finished = false;
  std::string failure;  // the error of a failed wait, repeated on later waits
};

namespace {

std::chrono::milliseconds ms(int64_t v) { return std::chrono::milliseconds(v); }

// probe_peers runs once per process group after its first failed op: every
// surviving rank marks itself alive in the store and looks, for a short
// while, for the others' marks. The ranks that never mark are named in the
// error (a dead or hung peer); an unreachable store is named as such.
std::string probe_peers(gt_dist_pg pg) {
  std::lock_guard<std::mutex> lock(pg->probe_mu);
  if (pg->probed.load()) return pg->probe_result;
  std::string result;
  try {
    pg->store->add("gotorch/alive/" + std::to_string(pg->rank), 1);
    auto window = std::min<std::chrono::milliseconds>(pg->timeout, ms(3000));
    auto deadline = std::chrono::steady_clock::now() + window;
    std::vector<int> missing;
    for (;;) {
      missing.clear();
      for (int r = 0; r < pg->size; r++) {
        if (r == pg->rank) continue;
        if (!pg->store->check({"gotorch/alive/" + std::to_string(r)})) missing.push_back(r);
      }
      if (missing.empty() || std::chrono::steady_clock::now() >= deadline) break;
      std::this_thread::sleep_for(ms(50));
    }
    if (missing.empty()) {
      result = "every other rank is alive (the failure is not a dead peer)";
    } else {
      std::ostringstream o;
      o << (missing.size() == 1 ? "rank " : "ranks ");
      for (size_t i = 0; i < missing.size(); i++) o << (i ? ", " : "") << missing[i];
      o << (missing.size() == 1 ? " is" : " are") << " dead or hung (no answer within "
        << window.count() << " ms)";
      result = o.str();
    }
  } catch (const std::exception &e) {
    result = "the store (" + pg->store_desc + ") is unreachable, so its host (rank 0 or the launcher) is dead: " +
             std::string(e.what()).substr(0, 200);
  }
  pg->probe_result = result;
  pg->probed.store(true);
  return result;
}

std::string first_line(const std::string &s) {
  auto p = s.find('\n');
  return p == std::string::npos ? s : s.substr(0, p);
}

c10d::ReduceOp reduce_op(int op) {
  switch (op) {
    case 0: case 1: return c10d::ReduceOp(c10d::ReduceOp::SUM);  // avg divides after
    case 2: return c10d::ReduceOp(c10d::ReduceOp::PRODUCT);
    case 3: return c10d::ReduceOp(c10d::ReduceOp::MIN);
    case 4: return c10d::ReduceOp(c10d::ReduceOp::MAX);
  }
  throw std::runtime_error("invalid reduce op " + std::to_string(op));
}

void check_tensor(const at::Tensor &t, const char *op) {
  TORCH_CHECK(t.defined(), op, ": undefined tensor");
  TORCH_CHECK(t.device().is_cpu(), op, ": Gloo needs CPU tensors, got one on ", t.device());
  TORCH_CHECK(t.is_contiguous(), op, ": the tensor must be contiguous (call Contiguous first)");
  TORCH_CHECK(!t.is_sparse(), op, ": sparse tensors are not supported");
}

gt_dist_work new_work(gt_dist_pg pg, const char *op, c10::intrusive_ptr<c10d::Work> w,
                      std::function<void()> after = nullptr) {
  auto *h = new gt_dist_work_s;
  h->w = std::move(w);
  h->pg = pg;
  h->op = op;
  h->seq = pg->seq.fetch_add(1);
  h->after = std::move(after);
  return h;
}

// start runs f, which starts op, and turns a synchronous failure into
// fail's error too.
template <class F>
c10::intrusive_ptr<c10d::Work> start(gt_dist_pg pg, const char *op, F &&f) {
  try {
    return f();
  } catch (const std::exception &e) {
    fail(pg, op, pg->seq.load(), e);
  }
}

void wait_work(gt_dist_work w, int64_t timeout_ms) {
  if (!w->failure.empty()) throw std::runtime_error(w->failure);
  if (w->finished) return;
  try {
    w->w->wait(timeout_ms > 0 ? ms(timeout_ms) : ms(0));
  } catch (const std::exception &e) {
    try {
      fail(w->pg, w->op, w->seq, e);
    } catch (const std::exception &e2) {
      w->failure = e2.what();
      throw;
    }
  }
  w->finished = true;
  if (w->after) w->after();
}

}  // namespace

namespace gtdist {

// fail turns the exception of op into an error naming the op, this rank
// and, when a peer is dead, that peer.
[[noreturn]] void fail(gt_dist_pg pg, const std::string &op, int64_t seq, const std::exception &e) {
  std::ostringstream o;
  o << op << " (op #" << seq << ") failed on rank " << pg->rank << " of " << pg->size;
  if (pg->size > 1) o << ": " << probe_peers(pg);
  o << ": " << first_line(e.what());
  throw std::runtime_error(o.str());
}

}  // namespace gtdist

extern "C" {

gt_error gt_dist_tcp_store(const char *host, int port, int is_server, int world_size, int64_t timeout_ms,
                           gt_dist_store *out) {
  return guard([&] {
    TORCH_CHECK(port >= 0 && port < 65536, "TCPStore: port ", port, " out of range");
    TORCH_CHECK(world_size > 0, "TCPStore: world size must be positive, got ", world_size);
    c10d::TCPStoreOptions o;
    o.port = static_cast<std::uint16_t>(port);
    o.isServer = is_server != 0;
    o.numWorkers = static_cast<std::size_t>(world_size);
    o.waitWorkers = false;
    o.timeout = ms(timeout_ms);
#if GT_LIBTORCH >= 20400
    // libtorch 2.4 made the libuv backend the default; Debian's build has
    // no libuv, and the classic backend serves the same protocol.
    o.useLibUV = false;
#endif
    auto s = c10::make_intrusive<c10d::TCPStore>(std::string(host), o);
    auto *h = new gt_dist_store_s;
    h->desc = std::string("TCPStore ") + host + ":" + std::to_string(s->getPort());
    h->s = s;
    *out = h;
  });
}

gt_error gt_dist_file_store(const char *path, int world_size, gt_dist_store *out) {
  return guard([&] {
    TORCH_CHECK(world_size > 0, "FileStore: world size must be positive, got ", world_size);
    auto *h = new gt_dist_store_s;
    h->s = c10::make_intrusive<c10d::FileStore>(std::string(path), world_size);
    h->desc = std::string("FileStore ") + path;
    *out = h;
  });
}

gt_error gt_dist_prefix_store(const char *prefix, gt_dist_store base, gt_dist_store *out) {
  return guard([&] {
    auto *h = new gt_dist_store_s;
    h->s = c10::make_intrusive<c10d::PrefixStore>(std::string(prefix), base->s);
    h->desc = base->desc + " (prefix " + prefix + ")";
    *out = h;
  });
}

void gt_dist_store_free(gt_dist_store s) { delete s; }

gt_error gt_dist_store_set(gt_dist_store s, const char *key, const void *val, int64_t n) {
  return guard([&] {
    auto *p = static_cast<const uint8_t *>(val);
    s->s->set(key, std::vector<uint8_t>(p, p + n));
  });
}

gt_error gt_dist_store_get(gt_dist_store s, const char *key, void **val, int64_t *n) {
  return guard([&] {
    auto v = s->s->get(key);
    void *p = std::malloc(v.size() ? v.size() : 1);
    TORCH_CHECK(p != nullptr, "out of memory");
    if (!v.empty()) std::memcpy(p, v.data(), v.size());
    *val = p;
    *n = static_cast<int64_t>(v.size());
  });
}

gt_error gt_dist_store_add(gt_dist_store s, const char *key, int64_t delta, int64_t *out) {
  return guard([&] { *out = s->s->add(key, delta); });
}

gt_error gt_dist_store_check(gt_dist_store s, const char *key, int *out) {
  return guard([&] { *out = s->s->check({key}) ? 1 : 0; });
}

int gt_dist_has_nccl(void) {
#ifdef USE_C10D_NCCL
  return 1;
#else
  return 0;
#endif
}

gt_error gt_dist_pg_new(int backend, gt_dist_store s, int rank, int size, int64_t timeout_ms, const char *iface,
                        const char *host, int threads, gt_dist_pg *out) {
  if (backend == 1) {
    return gotorch::unsupported("the NCCL backend", "this libtorch was built without NCCL (a CPU-only build)");
  }
  return guard([&] {
    TORCH_CHECK(backend == 0, "unknown backend ", backend);
    TORCH_CHECK(size > 0, "world size must be positive, got ", size);
    TORCH_CHECK(rank >= 0 && rank < size, "rank ", rank, " out of range for world size ", size);
    TORCH_CHECK(timeout_ms > 0, "timeout must be positive, got ", timeout_ms, " ms");
    auto o = c10d::ProcessGroupGloo::Options::create(ms(timeout_ms));
    if (iface != nullptr && *iface) {
      o->devices.push_back(c10d::ProcessGroupGloo::createDeviceForInterface(iface));
    } else if (host != nullptr && *host) {
      o->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname(host));
    } else {
      o->devices.push_back(c10d::ProcessGroupGloo::createDefaultDevice());
    }
    if (threads > 0) o->threads = threads;
    auto *h = new gt_dist_pg_s;
    try {
      h->pg = c10::make_intrusive<c10d::ProcessGroupGloo>(s->s, rank, size, o);
    } catch (...) {
      delete h;
      throw;
    }
#if GT_LIBTORCH >= 20000
    h->group = c10::make_intrusive<c10d::ProcessGroup>(s->s, rank, size);
    h->group->setBackend(c10::DeviceType::CPU, c10d::ProcessGroup::BackendType::GLOO, h->pg);
    h->group->setDefaultBackend(c10d::ProcessGroup::BackendType::GLOO);
#else
    h->group = h->pg;
#endif
    h->store = s->s;
    h->store_desc = s->desc;
    h->rank = rank;
    h->size = size;
    h->timeout = ms(timeout_ms);
    *out = h;
  });
}

void gt_dist_pg_free(gt_dist_pg pg) { delete pg; }

gt_error gt_dist_allreduce(gt_dist_pg pg, gt_tensor *ts, int64_t n, int op, gt_dist_work *out) {
  return guard([&] {
    auto v = gotorch::tensor_list(ts, n);
    TORCH_CHECK(n == 1, "all_reduce: Gloo takes one tensor per process, got ", n);
    for (auto &t : v) check_tensor(t, "all_reduce");
    c10d::AllreduceOptions o;
    o.reduceOp = reduce_op(op);
    if (op == 1) TORCH_CHECK(at::isFloatingType(v[0].scalar_type()) || at::isComplexType(v[0].scalar_type()),
                             "all_reduce: AVG needs a floating-point tensor, got ", v[0].scalar_type());
    auto w = start(pg, "all_reduce", [&] { return pg->pg->allreduce(v, o); });
    std::function<void()> after;
    if (op == 1) {
      int size = pg->size;
      after = [v, size] { v[0].div_(size); };
    }
    *out = new_work(pg, "all_reduce", w, after);
  });
}

gt_error gt_dist_broadcast(gt_dist_pg pg, gt_tensor *ts, int64_t n, int root, gt_dist_work *out) {
  return guard([&] {
    auto v = gotorch::tensor_list(ts, n);
    TORCH_CHECK(n == 1, "broadcast: Gloo takes one tensor per process, got ", n);
    TORCH_CHECK(root >= 0 && root < pg->size, "broadcast: root ", root, " out of range for world size ", pg->size);
    for (auto &t : v) check_tensor(t, "broadcast");
    c10d::BroadcastOptions o;
    o.rootRank = root;
    *out = new_work(pg, "broadcast", start(pg, "broadcast", [&] { return pg->pg->broadcast(v, o); }));
  });
}

gt_error gt_dist_allgather(gt_dist_pg pg, gt_tensor *outs, int64_t n, gt_tensor in, gt_dist_work *out) {
  return guard([&] {
    TORCH_CHECK(n == pg->size, "all_gather: needs one output tensor per rank (", pg->size, "), got ", n);
    std::vector<at::Tensor> input{T(in)};
    check_tensor(input[0], "all_gather");
    std::vector<std::vector<at::Tensor>> output{gotorch::tensor_list(outs, n)};
    for (auto &t : output[0]) {
      check_tensor(t, "all_gather");
      TORCH_CHECK(t.sizes() == input[0].sizes() && t.scalar_type() == input[0].scalar_type(),
                  "all_gather: output tensors must match the input's shape ", input[0].sizes(), " and dtype ",
                  input[0].scalar_type(), ", got ", t.sizes(), " ", t.scalar_type());
    }
    *out = new_work(pg, "all_gather", start(pg, "all_gather", [&] { return pg->pg->allgather(output, input); }));
  });
}

// reduce_scatter: ProcessGroupGloo of libtorch 1.13 has no reduce_scatter,
// so it is an all-reduce of the stacked inputs, of which each rank keeps its
// own slice; 2.x's Gloo does it natively.
gt_error gt_dist_reduce_scatter(gt_dist_pg pg, gt_tensor outp, gt_tensor *ins, int64_t n, int op,
                                gt_dist_work *out) {
  return guard([&] {
    TORCH_CHECK(n == pg->size, "reduce_scatter: needs one input tensor per rank (", pg->size, "), got ", n);
    at::Tensor output = T(outp);
    check_tensor(output, "reduce_scatter");
    auto inputs = gotorch::tensor_list(ins, n);
    for (auto &t : inputs) {
      check_tensor(t, "reduce_scatter");
      TORCH_CHECK(t.sizes() == output.sizes() && t.scalar_type() == output.scalar_type(),
                  "reduce_scatter: input tensors must match the output's shape ", output.sizes(), " and dtype ",
                  output.scalar_type(), ", got ", t.sizes(), " ", t.scalar_type());
    }
    if (op == 1) TORCH_CHECK(at::isFloatingType(output.scalar_type()), "reduce_scatter: AVG needs a floating-point tensor");
    c10d::AllreduceOptions o;
    o.reduceOp = reduce_op(op);
    std::vector<at::Tensor> v{at::stack(inputs)};
    int rank = pg->rank, size = pg->size;
    bool avg = op == 1;
    auto w = start(pg, "reduce_scatter", [&] { return pg->pg->allreduce(v, o); });
    *out = new_work(pg, "reduce_scatter", w, [v, output, rank, size, avg]() mutable {
      output.copy_(v[0][rank]);
      if (avg) output.div_(size);
    });
  });
}

gt_error gt_dist_broadcast_coalesced(gt_dist_pg pg, gt_tensor *ts, int64_t n, int root, int64_t buffer_bytes) {
  return guard([&] {
    TORCH_CHECK(root >= 0 && root < pg->size, "broadcast_coalesced: root ", root, " out of range for world size ",
                pg->size);
    TORCH_CHECK(buffer_bytes > 0, "broadcast_coalesced: buffer size must be positive, got ", buffer_bytes);
    auto v = gotorch::tensor_list(ts, n);
    for (auto &t : v) {
      check_tensor(t, "broadcast_coalesced");
      t = t.detach();  // parameters too: their data, written in place
    }
    if (v.empty() || pg->size == 1) return;
    at::NoGradGuard no_grad;
    int64_t seq = pg->seq.load();
    try {
      c10d::broadcast_coalesced(pg->group, v, static_cast<size_t>(buffer_bytes), root);
    } catch (const std::exception &e) {
      fail(pg, "broadcast_coalesced", seq, e);
    }
  });
}

gt_error gt_dist_barrier(gt_dist_pg pg, gt_dist_work *out) {
  return guard([&] { *out = new_work(pg, "barrier", start(pg, "barrier", [&] { return pg->pg->barrier(); })); });
}

gt_error gt_dist_send(gt_dist_pg pg, gt_tensor t, int dst, int tag, gt_dist_work *out) {
  return guard([&] {
    TORCH_CHECK(dst >= 0 && dst < pg->size && dst != pg->rank, "send: destination rank ", dst,
                " is not another rank of ", pg->size);
    std::vector<at::Tensor> v{T(t)};
    check_tensor(v[0], "send");
    *out = new_work(pg, "send", start(pg, "send", [&] { return pg->pg->send(v, dst, tag); }));
  });
}

gt_error gt_dist_recv(gt_dist_pg pg, gt_tensor t, int src, int tag, gt_dist_work *out) {
  return guard([&] {
    TORCH_CHECK(src >= 0 && src < pg->size && src != pg->rank, "recv: source rank ", src,
                " is not another rank of ", pg->size);
    std::vector<at::Tensor> v{T(t)};
    check_tensor(v[0], "recv");
    *out = new_work(pg, "recv", start(pg, "recv", [&] { return pg->pg->recv(v, src, tag); }));
  });
}

gt_error gt_dist_work_wait(gt_dist_work w, int64_t timeout_ms) {
  return guard([&] { wait_work(w, timeout_ms); });
}

int gt_dist_work_completed(gt_dist_work w) { return w->w->isCompleted() ? 1 : 0; }

void gt_dist_work_free(gt_dist_work w) { delete w; }

}  // extern "C"

// ---------------------------------------------------------------------------
// DDP: c10d's Reducer, the engine under PyTorch's DistributedDataParallel.
//
// The Reducer puts a hook on each parameter's gradient accumulator; after
// prepare_for_backward (which Go's DDP Forward calls, as Python's forward
// does), a ready gradient is copied into its bucket, a full bucket is
// all-reduced asynchronously while backward goes on, and a callback on the
// autograd engine waits for every bucket at the end of backward and writes
// the averages into .grad. Without prepare_for_backward the hooks do
// nothing (no_sync). GoTorch adds one thing: the all-reduce is a comm hook
// (PyTorch's allreduce_hook: divide by the world size, all-reduce, take the
// result) whose failure names the bucket, this rank and the dead peer, so
// that backward fails with that error instead of Gloo's bare one.
struct gt_dist_reducer_s {
  gt_dist_pg pg = nullptr;
  std::unique_ptr<c10d::Reducer> reducer;
  bool find_unused = false;
  // The error of the last failed reduction, shared with in-flight hooks.
  struct Slot {
    std::mutex mu;
    std::string error;
    // Nanoseconds from the start of each bucket's all-reduce to its end,
    // summed (what PyTorch's DDP logs as backward_comm_time).
    std::atomic<int64_t> comm_ns{0};
  };
  std::shared_ptr<Slot> slot = std::make_shared<Slot>();
};

namespace {

class AllreduceHook : public c10d::CommHookInterface {
 public:
  AllreduceHook(gt_dist_pg pg, std::shared_ptr<gt_dist_reducer_s::Slot> slot) : pg_(pg), slot_(std::move(slot)) {}

  c10::intrusive_ptr<c10::ivalue::Future> runHook(c10d::GradBucket &bucket) override {
    gt_dist_pg pg = pg_;
    auto slot = slot_;
    std::string op = "DDP gradient all_reduce of bucket " + std::to_string(bucket.getIndex());
    int64_t seq = pg->seq.fetch_add(1);
    at::Tensor &t = bucket.getBufferRef();
    t.div_(pg->size);
    std::vector<at::Tensor> v{t};
    c10::intrusive_ptr<c10d::Work> work;
    try {
      work = pg->pg->allreduce(v);
    } catch (const std::exception &e) {
      record(slot, pg, op, seq, e.what());
    }
    auto fut = work->getFuture();
    auto t0 = std::chrono::steady_clock::now();
    return fut->then(
        [pg, slot, op, seq, t0](c10::ivalue::Future &f) -> c10::IValue {
          slot->comm_ns += std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0)
                               .count();
          if (f.hasError()) record(slot, pg, op, seq, f.tryRetrieveErrorMessage());
          return f.value();
        },
        fut->elementType());
  }

  at::Tensor parseHookResult(const c10::IValue &result) override {
    if (result.isTensor()) return result.toTensor();
    auto v = result.toTensorVector();
    TORCH_CHECK(v.size() == 1, "DDP: the all-reduce returned ", v.size(), " tensors, want 1");
    return v[0];
  }

 private:
  // record turns a failed all-reduce into fail's error (op, rank, dead
  // peer), keeps it for gt_dist_reducer_error and throws it.
  [[noreturn]] static void record(const std::shared_ptr<gt_dist_reducer_s::Slot> &slot, gt_dist_pg pg,
                                  const std::string &op, int64_t seq, const std::string &what) {
    try {
      fail(pg, op, seq, std::runtime_error(what));
    } catch (const std::exception &e) {
      std::lock_guard<std::mutex> lock(slot->mu);
      slot->error = e.what();
      throw;
    }
  }

  gt_dist_pg pg_;
  std::shared_ptr<gt_dist_reducer_s::Slot> slot_;
};

// make_reducer constructs c10d's Reducer in whichever form the headers
// have: up to 2.6 (at least) with the per-bucket size limits of
// compute_bucket_assignment_by_size; in later ones (2.14) without them but
// with skip_all_reduce_unused_params, use_python_reducer and
// bucket_bytes_cap_list (empty: the first and later caps, as before).
template <class R = c10d::Reducer>
std::unique_ptr<R> make_reducer(std::vector<at::Tensor> params, std::vector<std::vector<size_t>> buckets,
                                std::vector<size_t> limits, c10::intrusive_ptr<c10d::ProcessGroup> group,
                                std::vector<bool> sparse, int64_t cap, bool find_unused, int64_t first_cap) {
  constexpr bool with_limits =
      std::is_constructible_v<R, std::vector<at::Tensor>, std::vector<std::vector<size_t>>, std::vector<size_t>,
                              c10::intrusive_ptr<c10d::ProcessGroup>, std::vector<bool>, int64_t, bool, bool,
                              std::unordered_map<size_t, std::string>, int64_t>;
  if constexpr (with_limits) {
    return std::make_unique<R>(std::move(params), std::move(buckets), std::move(limits), std::move(group),
                               std::move(sparse), cap, find_unused, /*gradient_as_bucket_view=*/false,
                               std::unordered_map<size_t, std::string>{}, first_cap);
  } else {
    return std::make_unique<R>(std::move(params), std::move(buckets), std::move(group), std::move(sparse), cap,
                               find_unused, /*gradient_as_bucket_view=*/false,
                               std::unordered_map<size_t, std::string>{}, first_cap,
                               /*skip_all_reduce_unused_params=*/false, /*use_python_reducer=*/false,
                               /*bucket_bytes_cap_list=*/std::vector<int64_t>{});
  }
}

}  // namespace

extern "C" {

gt_error gt_dist_reducer_new(gt_dist_pg pg, gt_tensor *ps, int64_t n, int64_t bucket_bytes, int64_t first_bucket_bytes,
                             int find_unused, gt_dist_reducer *out) {
  return guard([&] {
    TORCH_CHECK(n > 0, "DDP: the module has no parameters that require a gradient");
    TORCH_CHECK(bucket_bytes > 0 && first_bucket_bytes > 0, "DDP: bucket sizes must be positive");
    auto params = gotorch::tensor_list(ps, n);
    for (auto &p : params) {
      TORCH_CHECK(p.requires_grad() && p.is_leaf(), "DDP: parameters must be leaves that require a gradient");
      check_tensor(p, "DDP");
    }
    // Every rank's model must have rank 0's parameter shapes and dtypes
    // (PyTorch DDP's _verify_param_shape_across_processes).
    try {
      c10d::verify_params_across_processes(pg->group, params, {});
    } catch (const std::exception &e) {
      fail(pg, "DDP: checking the parameters against the other ranks'", pg->seq.load(), e);
    }
    // PyTorch DDP's bucket assignment: a small first bucket, then buckets
    // up to the cap, in parameter order, reversed (backward reaches the
    // last parameters first); the Reducer rebuilds them in the order the
    // gradients really came, after the first synced backward.
    std::vector<size_t> limits{static_cast<size_t>(first_bucket_bytes), static_cast<size_t>(bucket_bytes)};
    std::vector<bool> sparse(params.size(), false);
    auto assigned = c10d::compute_bucket_assignment_by_size(params, limits, sparse);
    auto buckets = std::get<0>(assigned);
    auto bucket_limits = std::get<1>(assigned);
    std::reverse(buckets.begin(), buckets.end());
    std::reverse(bucket_limits.begin(), bucket_limits.end());
    auto r = std::make_unique<gt_dist_reducer_s>();
    r->pg = pg;
    r->find_unused = find_unused != 0;
    r->reducer = make_reducer(std::move(params), std::move(buckets), std::move(bucket_limits), pg->group,
                              std::move(sparse), bucket_bytes, r->find_unused, first_bucket_bytes);
    r->reducer->register_comm_hook(std::make_unique<AllreduceHook>(pg, r->slot));
    *out = r.release();
  });
}

gt_error gt_dist_reducer_before_forward(gt_dist_reducer r, int sync) {
  return guard([&] {
    if (!at::GradMode::is_enabled()) return;  // no backward will follow
    if (sync) r->reducer->prepare_for_forward();
    // It checks that the last synced backward reduced every bucket, and,
    // once, after the first synced backward, rebuilds the buckets in the
    // order the gradients came (a broadcast from rank 0).
    int64_t seq = r->pg->seq.load();
    try {
      r->reducer->rebuild_buckets();
    } catch (const std::exception &e) {
      if (std::string(e.what()).find("Expected to have finished reduction") != std::string::npos) throw;
      fail(r->pg, "DDP bucket rebuild (a broadcast of the bucket order from rank 0)", seq, e);
    }
  });
}

gt_error gt_dist_reducer_after_forward(gt_dist_reducer r, gt_tensor *outputs, int64_t n) {
  return guard([&] {
    if (!at::GradMode::is_enabled()) return;
    std::vector<at::Tensor> outs;
    if (r->find_unused) outs = gotorch::tensor_list(outputs, n);
    r->reducer->prepare_for_backward(outs);
  });
}

int64_t gt_dist_reducer_buckets(gt_dist_reducer r) {
  try {
    return static_cast<int64_t>(r->reducer->get_grad_buckets(/*return_zero_tensors=*/false).size());
  } catch (...) {
    return -1;
  }
}

gt_error gt_dist_reducer_error(gt_dist_reducer r) {
  std::lock_guard<std::mutex> lock(r->slot->mu);
  if (r->slot->error.empty()) return nullptr;
  gt_error e = make_error(r->slot->error.c_str());
  r->slot->error.clear();
  return e;
}

int64_t gt_dist_reducer_comm_ns(gt_dist_reducer r) { return r->slot->comm_ns.load(); }

void gt_dist_reducer_free(gt_dist_reducer r) {
  if (r == nullptr) return;
  try {
    delete r->reducer.release();  // removes the hooks
  } catch (...) {
    // ~Reducer is noexcept(false); a failure there leaves hooks that no
    // backward of a freed DDP can reach anyway.
  }
  delete r;
}

}  // extern "C"
