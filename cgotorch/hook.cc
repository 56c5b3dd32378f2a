//go:build !gotorch_prebuilt

// hook.cc: the tensor hooks of hook.h. libtorch keeps a hook as a
// std::function on the tensor's autograd meta; ours captures a HookState,
// whose destructor gives the Go handle back.
#include "hook.h"

#include <atomic>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>

#include "internal.h"

namespace {

std::atomic<gt_hook_call_fn> call_fn{nullptr};
std::atomic<gt_hook_release_fn> release_fn{nullptr};

// HookState is what the closure on the tensor shares with the gt_hook.
struct HookState {
  uintptr_t fn;
  std::atomic<bool> enabled{true};
  // owned is set once libtorch holds the closure: only then does the
  // closure own fn (gt_tensor_register_hook's caller keeps it on error).
  std::atomic<bool> owned{false};
  explicit HookState(uintptr_t f) : fn(f) {}
  HookState(const HookState &) = delete;
  HookState &operator=(const HookState &) = delete;
  ~HookState() {
    auto release = release_fn.load();
    if (owned.load() && release != nullptr) release(fn);
  }
};

}  // namespace

struct gt_hook_s {
  using WeakImpl = c10::weak_intrusive_ptr<at::TensorImpl, at::UndefinedTensorImpl>;
  gt_hook_s(const at::Tensor &t, unsigned p, std::shared_ptr<HookState> s)
      : tensor(t.getIntrusivePtr()), pos(p), state(std::move(s)) {}
  WeakImpl tensor;  // the tensor, without keeping it alive
  unsigned pos;     // the hook's index in the tensor's hook list
  std::shared_ptr<HookState> state;
  bool detached = false;
};

extern "C" {

void gt_hook_set_callbacks(gt_hook_call_fn call, gt_hook_release_fn release) {
  call_fn.store(call);
  release_fn.store(release);
}

gt_error gt_tensor_register_hook(gt_tensor t, uintptr_t fn, gt_hook *out) {
  *out = nullptr;
  return gotorch::guard([&] {
    const at::Tensor &self = gotorch::T(t);
    TORCH_CHECK(call_fn.load() != nullptr, "register_hook: the Go callbacks are not installed");
    TORCH_CHECK(self.requires_grad(), "cannot register a hook on a tensor that doesn't require gradient");
    auto state = std::make_shared<HookState>(fn);
    // The closure holds the state; the state outlives a call even if the
    // closure is destroyed meanwhile, because the call holds it too.
    std::unique_ptr<gt_hook_s> h(new gt_hook_s(self, 0, state));
    h->pos = self.register_hook([state](const at::Tensor &grad) -> at::Tensor {
      std::shared_ptr<HookState> s = state;
      if (!s->enabled.load()) return at::Tensor();
      gt_tensor in = gotorch::wrap(grad);
      gt_tensor res = nullptr;
      gt_error err = call_fn.load()(s->fn, in, &res);
      if (err != nullptr) {
        std::string msg(err);
        std::free(err);
        gotorch::release(res);
        throw std::runtime_error(msg);
      }
      if (res == nullptr) return at::Tensor();
      at::Tensor r = gotorch::T(res);
      gotorch::release(res);
      return r;
    });
    state->owned.store(true);
    *out = h.release();
  });
}

void gt_hook_disable(gt_hook h) { h->state->enabled.store(false); }

gt_error gt_hook_detach(gt_hook h) {
  return gotorch::guard([&] {
    if (h->detached) return;
    h->detached = true;
    auto p = h->tensor.lock();
    if (!p) return;
    at::Tensor self(std::move(p));
    self.remove_hook(h->pos);
  });
}

void gt_hook_free(gt_hook h) { delete h; }

}  // extern "C"
