/* cgotorch.h: the C ABI between Go and libtorch.
 *
 * This header is plain C so that cgo can read it. The implementation is C++
 * (cgotorch/*.cc) and is compiled by cgo as part of package cgotorch.
 *
 * Conventions, kept by the hand-written functions here and by every generated
 * function in ops_gen.h:
 *   - A gt_tensor is an opaque handle that owns one reference to a tensor
 *     (it is the TensorImpl pointer an at::Tensor holds). NULL stands for an
 *     undefined tensor (for example an optional bias). Two handles to the
 *     same tensor may compare equal; each owns its own reference and is
 *     freed on its own.
 *   - Every function reports failure in the same call that failed: either it
 *     returns a gt_error, or it returns a result struct with an err field.
 *     There is no thread-local "last error": goroutines move between OS
 *     threads between cgo calls.
 *   - A gt_error is NULL on success, or a malloc'd NUL-terminated message that
 *     the caller releases with gt_free_error.
 *   - Every C++ exception (c10::Error, std::exception and anything else) is
 *     caught at this boundary.
 */
#ifndef GOTORCH_CGOTORCH_H_
#define GOTORCH_CGOTORCH_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gt_tensor_s *gt_tensor;
typedef char *gt_error;

/* Every struct here has a tag: cgo names an untagged struct
 * _Ctype_struct___N, which Go+ (gogen) takes for overload N of a type and
 * rejects when the Go package that uses it declares GopPackage. */

/* A single tensor and its error, returned by value: this saves the caller an
 * escaping out-pointer on the hottest path. */
typedef struct gt_tensor_result_s {
  gt_tensor t;
  gt_error err;
  int64_t nbytes; /* bytes of t's storage, for GoTorch's memory accounting */
} gt_tensor_result;

typedef struct gt_int_result_s {
  int64_t v;
  gt_error err;
} gt_int_result;

typedef struct gt_double_result_s {
  double v;
  gt_error err;
} gt_double_result;

/* A scalar passed by value. kind: 0 integer (i), 1 floating (re),
 * 2 boolean (i != 0), 3 complex (re, im). */
typedef struct gt_scalar_s {
  int64_t i;
  double re;
  double im;
  int32_t kind;
} gt_scalar;

void gt_free_error(gt_error err);
/* When set, error messages carry libtorch's C++ backtrace. */
void gt_set_backtrace(int on);

/* Library-level settings. */
const char *gt_version(void); /* libtorch's version, e.g. "1.13.1" */
int gt_cuda_is_available(void);
int64_t gt_cuda_device_count(void);
int gt_get_num_threads(void);
gt_error gt_set_num_threads(int n);
/* gt_set_thread_num_threads sets the intra-op threads of ops that run on the
 * calling OS thread only (OpenMP builds of libtorch). */
gt_error gt_set_thread_num_threads(int n);
gt_error gt_manual_seed(uint64_t seed);
int gt_grad_enabled(void);
void gt_set_grad_enabled(int on);

/* Lifetime. */
void gt_tensor_free(gt_tensor t);
/* Frees n handles (NULL entries are skipped) in one call. */
void gt_tensor_free_many(gt_tensor *ts, int64_t n);
/* The calling OS thread's id, for scopes pinned to a thread. */
int64_t gt_thread_id(void);
/* Tunes glibc's malloc for tensors allocated and freed on different threads
 * and in batches: caps the arenas, fixes the mmap and trim thresholds (0
 * leaves glibc's default) and turns fastbins off. */
void gt_tune_malloc(int arenas, int64_t mmap_threshold, int64_t trim_threshold, int no_fastbins);
/* Returns free heap memory to the system (glibc's malloc_trim). */
void gt_malloc_trim(void);
// The caching allocator for small CPU tensors' data (allocator.cc).
// on=0 puts libtorch's default allocator back.
void gt_small_alloc_install(int on);
int gt_small_alloc_installed(void);
void gt_small_alloc_trim(void);
/* A new handle to the same tensor (shares storage and autograd identity). */
gt_tensor gt_tensor_share(gt_tensor t);

/* Metadata. These never throw for a defined tensor. */
int gt_tensor_defined(gt_tensor t);
int64_t gt_tensor_dim(gt_tensor t);
/* Copies up to cap sizes into dst and returns the number of dims. */
int64_t gt_tensor_sizes(gt_tensor t, int64_t *dst, int64_t cap);
int64_t gt_tensor_numel(gt_tensor t);
int32_t gt_tensor_dtype(gt_tensor t);
int32_t gt_tensor_device_type(gt_tensor t);
int32_t gt_tensor_device_index(gt_tensor t);
int gt_tensor_requires_grad(gt_tensor t);
int gt_tensor_is_leaf(gt_tensor t);
int64_t gt_tensor_nbytes(gt_tensor t);
/* Name of the autograd node that made t ("" for a leaf); static storage is
 * not possible, so the caller frees the result with gt_free_error. */
char *gt_tensor_grad_fn_name(gt_tensor t);

/* Creation from and copy to host memory. */
gt_tensor_result gt_tensor_from_blob(const void *data, const int64_t *shape,
                                     int64_t ndim, int32_t dtype);
gt_error gt_tensor_copy_to(gt_tensor t, void *dst, int64_t nbytes, int32_t dtype);
gt_double_result gt_tensor_item_double(gt_tensor t);
gt_int_result gt_tensor_item_int(gt_tensor t);
gt_error gt_tensor_item_complex(gt_tensor t, double *re_im);

/* Conversion and autograd. dtype < 0 keeps the dtype, dev_type < 0 keeps
 * the device. */
gt_tensor_result gt_tensor_to(gt_tensor t, int32_t dtype, int32_t dev_type,
                              int32_t dev_index, int copy);
gt_error gt_tensor_set_requires_grad(gt_tensor t, int on);
gt_error gt_tensor_backward(gt_tensor t, gt_tensor grad, int retain_graph,
                            int create_graph);
/* t.grad(); t is NULL in the result when no gradient exists. */
gt_tensor_result gt_tensor_grad(gt_tensor t);
/* t.set_data(src): t keeps its identity (and autograd leaf-ness) but takes
 * src's storage, dtype and device. Used to move module parameters. */
gt_error gt_tensor_set_data(gt_tensor t, gt_tensor src);
gt_error gt_tensor_zero_grad(gt_tensor t);

/* Serialization in PyTorch's format (torch.save / torch.load). The bytes of
 * gt_tensor_save are malloc'd; free them with gt_free_bytes. The _fd forms
 * stream to and from an open file (load: a regular file of size bytes)
 * without holding the archive in memory. */
gt_error gt_tensor_save(gt_tensor t, char **data, int64_t *size);
gt_error gt_tensor_save_fd(gt_tensor t, int fd);
gt_tensor_result gt_tensor_load(const char *data, int64_t size);
gt_tensor_result gt_tensor_load_fd(int fd, int64_t size);
void gt_free_bytes(char *data);

/* Random generators (at::Generator), passed to the generated ops that take
 * one. */
typedef struct gt_generator_s *gt_generator;
gt_generator gt_generator_new(uint64_t seed);
void gt_generator_free(gt_generator g);
gt_error gt_generator_set_seed(gt_generator g, uint64_t seed);
uint64_t gt_generator_seed(gt_generator g);

/* Benchmark reference: n calls of at::add(a, b) (or at::mm when mm != 0)
 * made directly from C++, for side-by-side comparisons in one run. */
gt_error gt_bench_direct(gt_tensor a, gt_tensor b, int64_t n, int mm);

/* Helpers for the generated functions' results. */
void gt_free_tensor_array(gt_tensor *p);
void gt_free_int_array(int64_t *p);

#ifdef __cplusplus
}
#endif

#endif /* GOTORCH_CGOTORCH_H_ */
