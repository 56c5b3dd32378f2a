//go:build !gotorch_prebuilt

// ptstorage.cc: a tensor's storage, behind the plain C ABI of ptstorage.h.
#include "ptstorage.h"

#include <cstdint>

#include "internal.h"

extern "C" {

gt_pt_storage gt_pt_storage_of(gt_tensor t) {
  gt_pt_storage r{0, 0, 0, nullptr};
  r.err = gotorch::guard([&] {
    const at::Tensor &x = gotorch::T(t);
    TORCH_CHECK(x.has_storage(), "pt: a ", x.layout(), " tensor has no storage to save");
    const c10::Storage &s = x.storage();
    r.id = reinterpret_cast<uintptr_t>(s.unsafeGetStorageImpl());
    r.nbytes = static_cast<int64_t>(s.nbytes());
    r.offset = x.storage_offset();
  });
  return r;
}

}  // extern "C"
