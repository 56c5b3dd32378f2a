// compat/torch/csrc/distributed/autograd/context/context.h: the part of
// libtorch's distributed-autograd context header that c10d's reducer.hpp
// needs, for libtorch-dev packages that ship reducer.hpp without it
// (Debian 12's 1.13.1 lacks torch/csrc/distributed/autograd/). Where the
// real header is installed (Debian 13's 2.6, 2.14) it is used instead.
//
// reducer.hpp names two things from it: ContextPtr, the shared_ptr type of
// a member of Reducer (its layout does not depend on the pointee), and
// DistAutogradContext::GradCallback in a static_assert. GoTorch never
// creates or touches a DistAutogradContext (no RPC); the Reducer's own
// code, compiled into libtorch_cpu.so, uses the real class.
#pragma once

#if __has_include_next(<torch/csrc/distributed/autograd/context/context.h>)
#include_next <torch/csrc/distributed/autograd/context/context.h>
#else
#include <functional>
#include <memory>

#include <ATen/core/Tensor.h>

namespace torch {
namespace distributed {
namespace autograd {

class DistAutogradContext {
 public:
  using GradCallback = std::function<bool(at::Tensor &)>;
  DistAutogradContext() = delete;
};

using ContextPtr = std::shared_ptr<DistAutogradContext>;

}  // namespace autograd
}  // namespace distributed
}  // namespace torch
#endif
