// distributed.cc: c10d (stores, ProcessGroupGloo, collectives) and a
// bucketed gradient reducer for DDP, behind the C ABI of distributed.h.
#include "internal.h"
#include "distributed.h"

#include <utility>
#include <torch/csrc/autograd/engine.h>
#include <torch/csrc/autograd/function.h>
#include <torch/csrc/autograd/variable.h>
#include <torch/csrc/distributed/c10d/FileStore.hpp>
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <sstream>
#include <thread>

using gotorch::guard;
using gotorch::make_error;
using gotorch::T;

struct gt_dist_store_s {
  c10::intrusive_ptr<c10d::Store> s;
  std::string desc;
};

struct gt_dist_pg_s {
  c10::intrusive_ptr<c10d::ProcessGroupGloo> pg;
  c10::intrusive_ptr<c10d::Store> store;
  std::string store_desc;
  int rank = 0, size = 1;
  std::chrono::milliseconds timeout{0};
  std::atomic<int64_t> seq{0};
  std::atomic<bool> probed{false};
  std::string probe_result;
  std::mutex probe_mu;
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

// fail turns the exception of op into an error naming the op, this rank
// and, when a peer is dead, that peer.
[[noreturn]] void fail(gt_dist_pg pg, const std::string &op, int64_t seq, const std::exception &e) {
  std::ostringstream o;
  o << op << " (op #" << seq << ") failed on rank " << pg->rank << " of " << pg->size;
  if (pg->size > 1) o << ": " << probe_peers(pg);
  o << ": " << first_line(e.what());
  throw std::runtime_error(o.str());
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
// The DDP reducer.
//
// Like c10d's Reducer, it puts a post-hook on each parameter's gradient
// accumulator: when the accumulated gradient is ready, it is copied into its
// bucket's flat buffer; a full bucket is all-reduced asynchronously (buckets
// start strictly in order, so that every rank issues the same collectives),
// while backward goes on computing the gradients of earlier layers. A
// callback queued on the autograd engine at the first hook runs when
// backward ends: it starts the buckets still open (parameters without a
// gradient this step contribute zeros), waits for every bucket and writes
// the averages back into the .grad tensors. An error there makes backward
// fail with it.
struct gt_dist_reducer_s {
  struct Bucket {
    std::vector<size_t> params;
    std::vector<int64_t> offsets;
    at::Tensor flat;
    size_t pending = 0;
    c10::intrusive_ptr<c10d::Work> work;
    int64_t seq = 0;
  };
  gt_dist_pg pg = nullptr;
  std::vector<at::Tensor> params;
  // std::shared_ptr<Node> up to libtorch 2.x, c10::intrusive_ptr<Node> in
  // 2.14: whatever grad_accumulator returns.
  std::vector<decltype(torch::autograd::impl::grad_accumulator(std::declval<const at::Tensor &>()))> accumulators;
  std::vector<uintptr_t> hook_keys;
  std::vector<Bucket> buckets;
  std::vector<size_t> bucket_of;
  std::vector<bool> ready;
  size_t next_bucket = 0;
  bool active = false;  // a backward is under way
  std::atomic<bool> sync{true};
  std::mutex mu;
  std::string error;

  void launch(Bucket &b) {
    b.seq = pg->seq.fetch_add(1);
    std::vector<at::Tensor> v{b.flat};
    b.work = pg->pg->allreduce(v);
  }
  // launch_ready starts the buckets that are full, in order.
  void launch_ready() {
    while (next_bucket < buckets.size() && buckets[next_bucket].pending == 0) {
      launch(buckets[next_bucket]);
      next_bucket++;
    }
  }
  void on_grad(size_t i) {
    std::lock_guard<std::mutex> lock(mu);
    if (!sync.load()) return;
    if (!active) {
      active = true;
      torch::autograd::Engine::get_default_engine().queue_callback([this] { finish(); });
    }
    if (ready[i]) return;
    ready[i] = true;
    auto &b = buckets[bucket_of[i]];
    size_t k = 0;
    while (b.params[k] != i) k++;
    const at::Tensor &g = params[i].grad();
    auto slot = b.flat.narrow(0, b.offsets[k], params[i].numel());
    if (g.defined()) {
      slot.copy_(g.reshape({-1}));
      slot.div_(pg->size);
    } else {
      slot.zero_();
    }
    b.pending--;
    launch_ready();
  }
  void finish() {
    std::lock_guard<std::mutex> lock(mu);
    active = false;
    // Parameters that got no gradient this step contribute zeros.
    for (auto &b : buckets) {
      for (size_t k = 0; k < b.params.size(); k++) {
        size_t i = b.params[k];
        if (!ready[i]) {
          b.flat.narrow(0, b.offsets[k], params[i].numel()).zero_();
          ready[i] = true;
          b.pending--;
        }
      }
    }
    launch_ready();
    std::string err;
    for (size_t bi = 0; bi < buckets.size(); bi++) {
      auto &b = buckets[bi];
      try {
        b.work->wait();
      } catch (const std::exception &e) {
        if (err.empty()) {
          try {
            fail(pg, "DDP gradient all_reduce of bucket " + std::to_string(bi), b.seq, e);
          } catch (const std::exception &e2) {
            err = e2.what();
          }
        }
        continue;
      }
      for (size_t k = 0; k < b.params.size(); k++) {
        size_t i = b.params[k];
        auto avg = b.flat.narrow(0, b.offsets[k], params[i].numel()).view(params[i].sizes());
        at::Tensor &g = params[i].mutable_grad();
        if (g.defined()) {
          g.copy_(avg);
        } else {
          g = avg.clone();
        }
      }
    }
    for (size_t i = 0; i < ready.size(); i++) ready[i] = false;
    for (auto &b : buckets) {
      b.pending = b.params.size();
      b.work.reset();
    }
    next_bucket = 0;
    if (!err.empty()) {
      error = err;
      throw std::runtime_error(err);
    }
  }
};

namespace {
struct ReducerHook : torch::autograd::FunctionPostHook {
  gt_dist_reducer r;
  size_t i;
  ReducerHook(gt_dist_reducer r, size_t i) : r(r), i(i) {}
  torch::autograd::variable_list operator()(const torch::autograd::variable_list &outputs,
                                            const torch::autograd::variable_list & /*inputs*/) override {
    r->on_grad(i);
    return outputs;
  }
};
}  // namespace

extern "C" {

gt_error gt_dist_reducer_new(gt_dist_pg pg, gt_tensor *ps, int64_t n, int64_t bucket_bytes, int64_t first_bucket_bytes,
                             gt_dist_reducer *out) {
  return guard([&] {
    TORCH_CHECK(n > 0, "DDP: the module has no parameters that require a gradient");
    TORCH_CHECK(bucket_bytes > 0 && first_bucket_bytes > 0, "DDP: bucket sizes must be positive");
    auto r = std::make_unique<gt_dist_reducer_s>();
    r->pg = pg;
    r->params = gotorch::tensor_list(ps, n);
    for (auto &p : r->params) {
      TORCH_CHECK(p.requires_grad() && p.is_leaf(), "DDP: parameters must be leaves that require a gradient");
      check_tensor(p, "DDP");
    }
    // Buckets in reverse parameter order (backward reaches the last layers
    // first), split at the byte cap and where the dtype changes.
    r->bucket_of.assign(n, 0);
    r->ready.assign(n, false);
    gt_dist_reducer_s::Bucket cur;
    int64_t bytes = 0, cap = first_bucket_bytes, elems = 0;
    at::ScalarType dtype = r->params[n - 1].scalar_type();
    auto close = [&] {
      if (cur.params.empty()) return;
      cur.flat = at::zeros({elems}, r->params[cur.params[0]].options());
      cur.pending = cur.params.size();
      for (size_t i : cur.params) r->bucket_of[i] = r->buckets.size();
      r->buckets.push_back(std::move(cur));
      cur = gt_dist_reducer_s::Bucket();
      bytes = 0;
      elems = 0;
      cap = bucket_bytes;
    };
    for (int64_t i = n - 1; i >= 0; i--) {
      auto &p = r->params[i];
      if (!cur.params.empty() && (bytes >= cap || p.scalar_type() != dtype)) close();
      dtype = p.scalar_type();
      cur.params.push_back(static_cast<size_t>(i));
      cur.offsets.push_back(elems);
      elems += p.numel();
      bytes += p.numel() * static_cast<int64_t>(p.element_size());
    }
    close();
    for (int64_t i = 0; i < n; i++) {
      auto acc = torch::autograd::impl::grad_accumulator(r->params[i]);
      r->hook_keys.push_back(acc->add_post_hook(std::make_unique<ReducerHook>(r.get(), static_cast<size_t>(i))));
      r->accumulators.push_back(std::move(acc));
    }
    *out = r.release();
  });
}

void gt_dist_reducer_set_sync(gt_dist_reducer r, int sync) { r->sync.store(sync != 0); }

int64_t gt_dist_reducer_buckets(gt_dist_reducer r) { return static_cast<int64_t>(r->buckets.size()); }

gt_error gt_dist_reducer_error(gt_dist_reducer r) {
  std::lock_guard<std::mutex> lock(r->mu);
  if (r->error.empty()) return nullptr;
  gt_error e = make_error(r->error.c_str());
  r->error.clear();
  return e;
}

void gt_dist_reducer_free(gt_dist_reducer r) {
  if (r == nullptr) return;
  for (size_t i = 0; i < r->accumulators.size(); i++) r->accumulators[i]->del_post_hook(r->hook_keys[i]);
  delete r;
}

}  // extern "C"
