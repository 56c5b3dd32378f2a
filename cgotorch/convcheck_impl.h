// convcheck_impl.h: the self-check of libtorch's float32 CPU convolutions
// (issue 40). Some libtorch builds compute wrong convolution gradients with
// oneDNN (mkldnn) on some CPUs: Debian 13's libtorch 2.6 gives a wrong
// input gradient for a small dilated conv1d on AVX-512 machines, in
// PyTorch too. Package torch runs gt_conv_check before the first
// convolution and, where it fails, turns oneDNN off for the process
// (gt_set_mkldnn_enabled), as torch.backends.mkldnn.enabled = False does.
//
// A header only in name: tensor.cc includes it, once, so that ATen's
// headers are parsed once for both (a .cc of its own cost 15 s of g++ per
// cold build of the package), and Go's build cache hashes it as one of the
// package's headers.
#include <cmath>
#include <cstdio>

#include <c10/util/accumulate.h>

#include "internal.h"
#include "convcheck.h"

namespace {

// pattern is a float64 tensor of the given shape filled with small integers
// (exact in float32, and their products and sums too), varied by seed.
at::Tensor pattern(at::IntArrayRef shape, int64_t seed) {
  auto t = at::arange(c10::multiply_integers(shape), at::TensorOptions().dtype(at::kDouble));
  return at::remainder(t * (2 * seed + 3) + seed, 7).sub_(3).reshape(shape);
}

struct conv_case {
  const char *name;
  std::vector<int64_t> x, w, stride, padding, dilation;
  bool transposed;
  int64_t groups;
};

// run computes forward, grad input and grad weight of one case in dtype.
std::array<at::Tensor, 3> run(const conv_case &c, at::ScalarType dtype) {
  auto x = pattern(c.x, 1).to(dtype);
  auto w = pattern(c.w, 2).to(dtype);
  auto b = pattern({c.transposed ? c.w[1] * c.groups : c.w[0]}, 3).to(dtype);
  std::vector<int64_t> out_pad(c.stride.size(), 0);
  auto y = at::convolution(x, w, b, c.stride, c.padding, c.dilation, c.transposed, out_pad, c.groups);
  auto gy = pattern(y.sizes(), 4).to(dtype);
  std::vector<int64_t> bias_sizes{b.size(0)};
  auto grads = at::convolution_backward(gy, x, w, bias_sizes, c.stride, c.padding, c.dilation, c.transposed,
                                        out_pad, c.groups, {true, true, false});
  return {y, std::get<0>(grads), std::get<1>(grads)};
}

}  // namespace

extern "C" {

int gt_mkldnn_available(void) { return at::hasMKLDNN() ? 1 : 0; }
int gt_mkldnn_enabled(void) { return at::globalContext().userEnabledMkldnn() ? 1 : 0; }
void gt_set_mkldnn_enabled(int on) { at::globalContext().setUserEnabledMkldnn(on != 0); }

gt_error gt_conv_check(double perturb, double *worst, char *which, int64_t which_len) {
  return gotorch::guard([&] {
    // Small shapes, dilated and not, strided, grouped and transposed: the
    // 1-d ones are those of the issue, where 2.6's oneDNN was wrong.
    static const conv_case cases[] = {
        {"conv1d dilated", {2, 3, 7}, {4, 3, 3}, {1}, {2}, {2}, false, 1},
        {"conv1d", {2, 3, 7}, {4, 3, 3}, {1}, {1}, {1}, false, 1},
        {"conv2d", {2, 3, 8, 8}, {4, 3, 3, 3}, {1, 1}, {1, 1}, {1, 1}, false, 1},
        {"conv2d strided dilated", {2, 3, 9, 9}, {4, 3, 3, 3}, {2, 2}, {2, 2}, {2, 2}, false, 1},
        {"conv2d grouped", {1, 4, 6, 6}, {4, 2, 3, 3}, {1, 1}, {1, 1}, {1, 1}, false, 2},
        {"conv_transpose2d", {2, 4, 5, 5}, {4, 3, 3, 3}, {2, 2}, {1, 1}, {1, 1}, true, 1},
        {"conv3d", {1, 2, 5, 5, 5}, {3, 2, 3, 3, 3}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}, false, 1},
    };
    static const char *const parts[] = {"output", "grad input", "grad weight"};
    // With the caller's grad mode and without autocast's casts: the
    // backward is called directly, and each dtype must stay what it is.
    c10::impl::ExcludeDispatchKeyGuard no_autocast(c10::autocast_dispatch_keyset);
    double w = -1;  // the first case is the worst until another is
    std::string at;
    for (const auto &c : cases) {
      auto want = run(c, at::kDouble);
      auto got = run(c, at::kFloat);
      for (int i = 0; i < 3; i++) {
        auto g = got[i].to(at::kDouble);
        if (i == 1 && &c == &cases[0]) g = g + perturb;  // tests: a wrong result
        double scale = std::max(1.0, want[i].abs().max().item<double>());
        double d = (g - want[i]).abs().max().item<double>() / scale;
        if (!(d <= w)) {  // NaN counts as the worst
          w = std::isnan(d) ? INFINITY : d;
          at = std::string(c.name) + " " + parts[i];
        }
      }
    }
    *worst = w;
    std::snprintf(which, static_cast<size_t>(which_len), "%s", at.c_str());
  });
}

}  // extern "C"
