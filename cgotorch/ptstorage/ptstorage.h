/* ptstorage.h: what package torch/pt needs to save views as torch.save
 * does: which storage a tensor lives in, how large it is, and the
 * tensor's offset in it. Plain C; every function catches every C++
 * exception. Works with any libtorch GoTorch builds with. */
#ifndef GOTORCH_CGOTORCH_PTSTORAGE_H_
#define GOTORCH_CGOTORCH_PTSTORAGE_H_

#include <stdint.h>

#include "cgotorch.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gt_pt_storage_s {
  uintptr_t id;   /* the storage's identity (its StorageImpl), while t lives */
  int64_t nbytes; /* the storage's size in bytes */
  int64_t offset; /* t's storage offset, in elements of its dtype */
  gt_error err;
} gt_pt_storage;

/* The storage of the borrowed tensor t. */
gt_pt_storage gt_pt_storage_of(gt_tensor t);

#ifdef __cplusplus
}
#endif

#endif /* GOTORCH_CGOTORCH_PTSTORAGE_H_ */
