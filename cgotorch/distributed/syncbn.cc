//go:build !gotorch_prebuilt

// syncbn.cc: synchronized batch norm (PyTorch's nn.SyncBatchNorm) as an
// autograd function over a Gloo group, behind gt_dist_sync_batch_norm.
//
// It is PyTorch's torch.nn.modules._functions.SyncBatchNorm: forward
// all-gathers each rank's per-channel mean, invstd and count, merges them
// (Welford's merge, rank by rank, as batch_norm_gather_stats_with_counts
// does), updates the running statistics with the unbiased variance over
// the whole group, and normalizes; backward sums sum_dy and sum_dy_xmu over
// the group with an all-reduce and computes the input's gradient from them
// (batch_norm_backward_elemt), while the weight's and bias's gradients
// stay this rank's (DDP averages them). libtorch 1.13 has those kernels on
// CUDA only; here they are ATen ops, in the kernels' order of operations.
#include "internal.h"
#include "distributed.h"
#include "group.h"

#include <torch/csrc/autograd/custom_function.h>

#include <string>
#include <vector>

using gotorch::guard;
using gotorch::OT;
using gotorch::T;

namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

std::vector<int64_t> reduced_dims(const at::Tensor &x) {
  std::vector<int64_t> d{0};
  for (int64_t i = 2; i < x.dim(); i++) d.push_back(i);
  return d;
}

// per_channel views a (C) tensor so that it broadcasts over x's channels.
at::Tensor per_channel(const at::Tensor &x, const at::Tensor &v) {
  std::vector<int64_t> shape(x.dim(), 1);
  shape[1] = -1;
  return v.view(shape);
}

gt_dist_pg group_of(AutogradContext *ctx) {
  return reinterpret_cast<gt_dist_pg>(ctx->saved_data["pg"].toInt());
}

// run starts a collective of pg and waits for it; a failure becomes fail's
// error (op, rank, dead peer).
template <class F>
void run(gt_dist_pg pg, const std::string &op, F &&start) {
  int64_t seq = pg->seq.fetch_add(1);
  try {
    auto w = start();
    w->wait();
  } catch (const std::exception &e) {
    gtdist::fail(pg, op, seq, e);
  }
}

struct SyncBatchNormFn : public torch::autograd::Function<SyncBatchNormFn> {
  static at::Tensor forward(AutogradContext *ctx, at::Tensor input, at::Tensor weight, at::Tensor bias,
                            at::Tensor running_mean, at::Tensor running_var, double eps, double momentum,
                            int64_t pg_handle) {
    auto pg = reinterpret_cast<gt_dist_pg>(pg_handle);
    at::Tensor x = input.contiguous();
    const int64_t C = x.size(1);
    const auto acc = x.scalar_type() == at::kDouble ? at::kDouble : at::kFloat;
    at::Tensor xa = x.to(acc);
    at::Tensor combined;
    if (x.numel() > 0) {
      // batch_norm_stats: the biased variance's invstd.
      auto [var, mean] = at::var_mean(xa, reduced_dims(xa), /*unbiased=*/false, /*keepdim=*/false);
      at::Tensor invstd = (var + eps).sqrt().reciprocal();
      combined = at::cat({mean, invstd, at::full({1}, static_cast<double>(x.numel() / C), xa.options())});
    } else {
      // An empty batch still takes part in the all_gather, with count 0.
      combined = at::zeros({2 * C + 1}, xa.options());
    }
    std::vector<std::vector<at::Tensor>> gathered(1);
    for (int r = 0; r < pg->size; r++) gathered[0].push_back(at::empty_like(combined));
    std::vector<at::Tensor> in{combined};
    run(pg, "SyncBatchNorm all_gather of the batch statistics", [&] { return pg->pg->allgather(gathered, in); });

    // batch_norm_gather_stats_with_counts, ranks with an empty batch left out.
    at::Tensor avg = at::zeros({C}, xa.options()), var_n = at::zeros({C}, xa.options());
    double n = 0;
    for (const auto &g : gathered[0]) {
      double cnt = g[2 * C].item<double>();
      if (cnt < 1) continue;
      at::Tensor m = g.narrow(0, 0, C);
      at::Tensor v = g.narrow(0, C, C).reciprocal();
      v = (v * v - eps) * cnt;
      double factor = 1.0 / (n + cnt);
      at::Tensor d = avg - m;
      var_n = var_n + v + d * d * (n * cnt * factor);
      avg = avg * (n * factor) + m * (cnt * factor);
      n += cnt;
    }
    TORCH_CHECK(n > 1, "SyncBatchNorm: expected more than 1 value per channel when training, got ",
                static_cast<int64_t>(n), " over the ", pg->size, " ranks");
    at::Tensor invstd = (var_n / n + eps).sqrt().reciprocal();
    {
      at::NoGradGuard no_grad;
      if (running_mean.defined()) {
        running_mean.copy_(running_mean * (1 - momentum) + avg.to(running_mean.scalar_type()) * momentum);
      }
      if (running_var.defined()) {
        running_var.copy_(running_var * (1 - momentum) + (var_n / (n - 1)).to(running_var.scalar_type()) * momentum);
      }
    }
    ctx->save_for_backward({x, weight, avg, invstd});
    ctx->saved_data["count"] = n;
    ctx->saved_data["pg"] = pg_handle;
    if (x.numel() == 0) return at::empty_like(x);
    // batch_norm_elemt: weight * (x - mean) * invstd + bias.
    at::Tensor y = weight.defined()
                       ? per_channel(xa, weight.to(acc)) * (xa - per_channel(xa, avg)) * per_channel(xa, invstd)
                       : (xa - per_channel(xa, avg)) * per_channel(xa, invstd);
    if (bias.defined()) y = y + per_channel(xa, bias.to(acc));
    return y.to(x.scalar_type());
  }

  static variable_list backward(AutogradContext *ctx, variable_list grad_outputs) {
    auto saved = ctx->get_saved_variables();
    at::Tensor x = saved[0], weight = saved[1], mean = saved[2], invstd = saved[3];
    gt_dist_pg pg = group_of(ctx);
    const int64_t C = x.size(1);
    const bool input_g = ctx->needs_input_grad(0), weight_g = ctx->needs_input_grad(1),
               bias_g = ctx->needs_input_grad(2);
    at::Tensor grad_input, grad_weight, grad_bias;
    const auto acc = mean.scalar_type();
    if (x.numel() > 0) {
      at::Tensor dy = grad_outputs[0].contiguous().to(acc);
      at::Tensor xmu = x.to(acc) - per_channel(x, mean);
      // batch_norm_backward_reduce
      auto dims = reduced_dims(x);
      at::Tensor sum_dy = dy.sum(dims);
      at::Tensor sum_dy_xmu = (dy * xmu).sum(dims);
      if (weight.defined() && weight_g) grad_weight = (sum_dy_xmu * invstd).to(weight.scalar_type());
      if (weight.defined() && bias_g) grad_bias = sum_dy.to(weight.scalar_type());
      if (input_g) {
        std::vector<at::Tensor> v{at::cat({sum_dy, sum_dy_xmu})};
        run(pg, "SyncBatchNorm all_reduce of the gradient statistics", [&] { return pg->pg->allreduce(v); });
        sum_dy = v[0].narrow(0, 0, C);
        sum_dy_xmu = v[0].narrow(0, C, C);
        // batch_norm_backward_elemt
        double norm = 1.0 / ctx->saved_data["count"].toDouble();
        at::Tensor mean_dy = sum_dy * norm;
        at::Tensor factor_1 = invstd * invstd * (sum_dy_xmu * norm);
        at::Tensor factor_2 = weight.defined() ? weight.to(acc) * invstd : invstd;
        grad_input = ((dy - per_channel(x, mean_dy) - xmu * per_channel(x, factor_1)) * per_channel(x, factor_2))
                         .to(x.scalar_type());
      }
    } else if (input_g) {
      // Take part in the others' all_reduce with zeros.
      std::vector<at::Tensor> v{at::zeros({2 * C}, mean.options())};
      run(pg, "SyncBatchNorm all_reduce of the gradient statistics", [&] { return pg->pg->allreduce(v); });
      grad_input = at::zeros_like(x);
    }
    return {grad_input, grad_weight, grad_bias, at::Tensor(), at::Tensor(), at::Tensor(), at::Tensor(),
            at::Tensor()};
  }
};

}  // namespace

extern "C" {

gt_error gt_dist_sync_batch_norm(gt_dist_pg pg, gt_tensor input, gt_tensor weight, gt_tensor bias,
                                 gt_tensor running_mean, gt_tensor running_var, double eps, double momentum,
                                 gt_tensor *out) {
  return guard([&] {
    const at::Tensor &x = T(input);
    TORCH_CHECK(x.dim() >= 2, "SyncBatchNorm: expected at least 2D input (got ", x.dim(), "D input)");
    TORCH_CHECK(x.size(1) > 0, "SyncBatchNorm: the input has no channels (size 0 in dimension 1)");
    TORCH_CHECK(x.device().is_cpu(), "SyncBatchNorm: Gloo needs CPU tensors, got one on ", x.device());
    TORCH_CHECK(at::isFloatingType(x.scalar_type()), "SyncBatchNorm: expected a floating-point input, got ",
                x.scalar_type());
    const int64_t C = x.size(1);
    at::Tensor w = OT(weight), b = OT(bias), rm = OT(running_mean), rv = OT(running_var);
    for (auto *p : {&w, &b, &rm, &rv}) {
      TORCH_CHECK(!p->defined() || (p->dim() == 1 && p->size(0) == C), "SyncBatchNorm: expected a (", C,
                  ") tensor for the input's channels, got ", p->sizes());
    }
    *out = gotorch::wrap(SyncBatchNormFn::apply(x, w, b, rm, rv, eps, momentum, reinterpret_cast<int64_t>(pg)));
  });
}

}  // extern "C"
