// loadcheck.h: the checks that run before libtorch's unpickler sees a file
// (torch.Load and torch.Decode in tensor.cc, TorchScript archives in
// jit/jit.cc). Not part of the C ABI; never included from Go.
#ifndef GOTORCH_CGOTORCH_LOADCHECK_H_
#define GOTORCH_CGOTORCH_LOADCHECK_H_

#include <ATen/ATen.h>

#include <cstddef>
#include <cstdint>

namespace gotorch {

// kMaxPickleDepth bounds the nesting of the values a pickle builds (lists,
// tuples, dicts, objects inside each other). libtorch's unpickler builds
// them without recursion, but the IValue destructor and every walk of the
// result recurse: a million levels overflow the native stack.
constexpr int64_t kMaxPickleDepth = 1000;

// check_pickle proves that libtorch 1.13's unpickler can run the pickle
// program p[0..n) without a crash, a huge allocation or a value too deep to
// destroy, and throws a c10::Error naming the offset and the rule
// otherwise. what names the record in messages ("data.pkl"). It accepts
// only the opcodes that unpickler knows and refuses any other, so a program
// it passes is one whose every step it has checked.
void check_pickle(const uint8_t *p, size_t n, const char *what);

// check_loaded_tensor throws when a tensor's sizes, strides and offset, as
// a file gave them, reach outside its storage (libtorch's unpickler sets
// them unchecked), or when a sparse tensor's indices are out of range.
void check_loaded_tensor(const at::Tensor &t);

}  // namespace gotorch

#endif  // GOTORCH_CGOTORCH_LOADCHECK_H_
