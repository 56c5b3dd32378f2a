//go:build !gotorch_prebuilt

// aoti.cc: AOTInductor packages behind the plain C ABI of aoti.h.
#include "aoti.h"

#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "internal.h"

#if GT_LIBTORCH >= 20600
#include <ATen/DynamicLibrary.h>
#include <torch/csrc/inductor/aoti_package/model_package_loader.h>
#include <torch/csrc/inductor/aoti_runtime/interface.h>

struct gt_aoti_model_s {
  std::unique_ptr<torch::inductor::AOTIModelPackageLoader> loader;
  int64_t inputs = -1;
  int64_t outputs = -1;
};

namespace {

// The runner keeps the model's library and container handle to itself
// (protected members). Pointers to members, taken through a derived
// class, read them without copying its layout.
struct RunnerAccess : torch::inductor::AOTIModelContainerRunner {
  static at::DynamicLibrary *library(torch::inductor::AOTIModelContainerRunner *r) {
    return (r->*(&RunnerAccess::model_so_)).get();
  }
  static AOTInductorModelContainerHandle container(torch::inductor::AOTIModelContainerRunner *r) {
    return r->*(&RunnerAccess::container_handle_);
  }
};

// count asks the model's library how many inputs or outputs it takes.
int64_t count(torch::inductor::AOTIModelContainerRunner *r, const char *fn) {
  using Fn = AOTIRuntimeError (*)(AOTInductorModelContainerHandle, size_t *);
  auto f = reinterpret_cast<Fn>(RunnerAccess::library(r)->sym(fn));
  size_t n = 0;
  TORCH_CHECK(f(RunnerAccess::container(r), &n) == AOTI_RUNTIME_SUCCESS, "aoti: ", fn, " failed");
  return static_cast<int64_t>(n);
}

}  // namespace
#else
struct gt_aoti_model_s {};
#endif

namespace {
constexpr const char *kWhy = "AOTInductor packages need libtorch 2.6 or newer";
}

extern "C" {

gt_aoti_model_result gt_aoti_load(const char *path, const char *model_name) {
  gt_aoti_model_result r{nullptr, nullptr};
#if GT_LIBTORCH >= 20600
  r.err = gotorch::guard([&] {
    auto m = std::make_unique<gt_aoti_model_s>();
    std::string name = model_name;
    m->loader = name.empty() ? std::make_unique<torch::inductor::AOTIModelPackageLoader>(path)
                             : std::make_unique<torch::inductor::AOTIModelPackageLoader>(path, name);
    auto *runner = m->loader->get_runner();
    TORCH_CHECK(runner != nullptr, "aoti: the package has no runner");
    m->inputs = count(runner, "AOTInductorModelContainerGetNumInputs");
    m->outputs = count(runner, "AOTInductorModelContainerGetNumOutputs");
    r.m = m.release();
  });
#else
  (void)path;
  (void)model_name;
  r.err = gotorch::unsupported("aoti.load", kWhy);
#endif
  return r;
}

void gt_aoti_free(gt_aoti_model m) { delete m; }

gt_aoti_counts gt_aoti_counts_of(gt_aoti_model m) {
#if GT_LIBTORCH >= 20600
  return gt_aoti_counts{m->inputs, m->outputs, nullptr};
#else
  (void)m;
  return gt_aoti_counts{0, 0, gotorch::unsupported("aoti.counts", kWhy)};
#endif
}

gt_aoti_tensors gt_aoti_run(gt_aoti_model m, gt_tensor *in, int64_t n, const int64_t *layout,
                            int64_t layout_len) {
  gt_aoti_tensors r{nullptr, 0, nullptr};
#if GT_LIBTORCH >= 20600
  r.err = gotorch::guard([&] {
    TORCH_CHECK(n == m->inputs, "aoti: the model takes ", m->inputs, " input tensor(s), got ", n);
    std::vector<at::Tensor> inputs = gotorch::tensor_list(in, n);
    int64_t pos = 0;
    auto next = [&](const char *what) {
      TORCH_CHECK(pos < layout_len, "aoti: the layout list ends before ", what);
      return layout[pos++];
    };
    for (int64_t i = 0; i < n; i++) {
      at::Tensor &t = inputs[i];
      TORCH_CHECK(t.layout() == at::kStrided, "aoti: input ", i, " has layout ", t.layout(),
                  ", want a strided (dense) tensor");
      if (layout == nullptr) continue;
      int64_t mode = next("a mode");
      if (mode == 1) {
        if (!t.is_contiguous()) t = t.contiguous();
      } else if (mode == 2) {
        int64_t k = next("a rank");
        TORCH_CHECK(k == t.dim(), "aoti: input ", i, " has ", t.dim(), " dimensions, want ", k);
        std::vector<int64_t> want(k);
        for (auto &s : want) s = next("a stride");
        for (int64_t d = 0; d < k; d++) {
          TORCH_CHECK(want[d] < 0 || t.size(d) <= 1 || t.stride(d) == want[d], "aoti: input ", i,
                      " has strides ", t.strides(), ", want ", at::IntArrayRef(want),
                      " (-1: any), the layout the package was compiled for");
        }
      } else {
        TORCH_CHECK(mode == 0, "aoti: bad layout mode ", mode, " for input ", i);
      }
    }
    TORCH_CHECK(layout == nullptr || pos == layout_len, "aoti: ", layout_len - pos, " layout value(s) left over");
    std::vector<at::Tensor> out = m->loader->run(inputs);
    r.ts = gotorch::wrap_list(out, &r.n);
  });
#else
  (void)m;
  (void)in;
  (void)n;
  (void)layout;
  (void)layout_len;
  r.err = gotorch::unsupported("aoti.run", kWhy);
#endif
  return r;
}

void gt_aoti_tensors_free(gt_aoti_tensors *r) {
  std::free(r->ts);
  r->ts = nullptr;
}

gt_aoti_bytes gt_aoti_metadata(gt_aoti_model m) {
  gt_aoti_bytes r{nullptr, 0, nullptr};
#if GT_LIBTORCH >= 20600
  r.err = gotorch::guard([&] {
    std::string s;
    for (const auto &kv : m->loader->get_metadata()) {
      s += kv.first;
      s.push_back('\0');
      s += kv.second;
      s.push_back('\0');
    }
    r.p = static_cast<char *>(std::malloc(s.size() + 1));
    if (r.p == nullptr) throw std::bad_alloc();
    std::memcpy(r.p, s.data(), s.size());
    r.n = static_cast<int64_t>(s.size());
  });
#else
  (void)m;
  r.err = gotorch::unsupported("aoti.metadata", kWhy);
#endif
  return r;
}

void gt_aoti_bytes_free(gt_aoti_bytes *b) {
  std::free(b->p);
  b->p = nullptr;
}

}  // extern "C"
