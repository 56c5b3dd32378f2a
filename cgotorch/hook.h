/* hook.h: tensor hooks that call back into Go (torch.Tensor.RegisterHook,
 * PyTorch's Tensor.register_hook). Plain C, included from Go beside
 * cgotorch.h; hook.cc implements it.
 *
 * A hook is a Go function that package torch keeps in a handle table; C++
 * knows it by its handle, a uintptr_t. The closure that libtorch keeps on
 * the tensor owns that handle: when libtorch destroys the closure (the
 * hook is taken off, or the tensor dies), hook.cc gives the handle back
 * through the release callback, exactly once. A handle that
 * gt_tensor_register_hook refused stays the caller's. */
#ifndef GOTORCH_CGOTORCH_HOOK_H_
#define GOTORCH_CGOTORCH_HOOK_H_

#include <stdint.h>

#include "cgotorch.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A gt_hook is one registered hook, as the handle that register_hook
 * returns: it refers to its tensor weakly, so it keeps no memory alive. */
typedef struct gt_hook_s *gt_hook;

/* gt_hook_call_fn runs the hook fn on grad, a new reference that the
 * callee owns. It stores a replacement gradient (a new reference) in *out,
 * or leaves *out NULL to keep grad, and returns NULL or an error that
 * backward raises (malloc'd; hook.cc frees it). */
typedef gt_error (*gt_hook_call_fn)(uintptr_t fn, gt_tensor grad, gt_tensor *out);

/* gt_hook_release_fn gives the handle fn back: no closure holds it any
 * more. */
typedef void (*gt_hook_release_fn)(uintptr_t fn);

/* gt_hook_set_callbacks installs the two callbacks, once, before any
 * hook is registered. */
void gt_hook_set_callbacks(gt_hook_call_fn call, gt_hook_release_fn release);

/* gt_tensor_register_hook registers the hook fn on t, which must require
 * grad, and stores its gt_hook in *out. On an error fn stays the
 * caller's. */
gt_error gt_tensor_register_hook(gt_tensor t, uintptr_t fn, gt_hook *out);

/* gt_hook_disable turns h off: from now on the closure passes the
 * gradient through without calling back. */
void gt_hook_disable(gt_hook h);

/* gt_hook_detach takes h's closure off its tensor, which releases its
 * handle; it does nothing when the tensor is gone or h is already
 * detached. No backward may run on the tensor's graph meanwhile. */
gt_error gt_hook_detach(gt_hook h);

/* gt_hook_free frees h itself (not the hook it stands for). */
void gt_hook_free(gt_hook h);

#ifdef __cplusplus
}
#endif

#endif /* GOTORCH_CGOTORCH_HOOK_H_ */
