/* jit.h: a plain C ABI over TorchScript (torch::jit::Module).
 *
 * Every function catches every C++ exception and returns it as a gt_error
 * (cgotorch/cgotorch.h), in its result or as its return value.
 *
 * Values cross in both directions as a flat tree: an array of gt_jit_value
 * nodes in preorder, where a tuple or list node is followed by its n
 * children and a dict node by its n key/value pairs (key, value, key,
 * value, ...), each child with its own subtree. Strings live in a separate
 * byte buffer; a string node holds its offset (i) and length (n). Tensor
 * handles in nodes are borrowed from the caller going in, and are new
 * references that the caller owns coming out. */
#ifndef GOTORCH_CGOTORCH_JIT_H_
#define GOTORCH_CGOTORCH_JIT_H_

#include <stdint.h>

#include "cgotorch.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gt_jit_module_s *gt_jit_module;

/* Node kinds. */
enum {
  GT_JIT_NONE = 0,
  GT_JIT_TENSOR = 1,  /* t (NULL for an undefined tensor) */
  GT_JIT_INT = 2,     /* i */
  GT_JIT_DOUBLE = 3,  /* d */
  GT_JIT_BOOL = 4,    /* i: 0 or 1 */
  GT_JIT_STRING = 5,  /* i: offset, n: length in the string buffer */
  GT_JIT_TUPLE = 6,   /* n children */
  GT_JIT_LIST = 7,    /* n children; elem: the element kind, 0 if generic */
  GT_JIT_DICT = 8,    /* n pairs; elem: the value kind, 0 if generic */
  GT_JIT_DEVICE = 9,  /* i: device type, i2: index */
  GT_JIT_COMPLEX = 10 /* d, d2: real and imaginary parts */
};

/* Limits of the values that cross, both ways: the nesting of tuples, lists
 * and dicts, and the nodes of one tree (a list reached twice counts twice). */
#define GT_JIT_MAX_DEPTH 1000
#define GT_JIT_MAX_VALUES (1 << 22)

typedef struct gt_jit_value_s {
  int32_t kind;
  int32_t elem;
  int64_t n;
  int64_t i;
  int64_t i2;
  double d;
  double d2;
  gt_tensor t;
} gt_jit_value;

/* A tree coming out: free with gt_jit_values_free (it frees the arrays,
 * not the tensor handles, which the caller owns). */
typedef struct gt_jit_values_s {
  gt_jit_value *v;
  int64_t n;
  char *strs;
  int64_t nstrs;
  gt_error err;
} gt_jit_values;

void gt_jit_values_free(gt_jit_values *r);

typedef struct gt_jit_module_result_s {
  gt_jit_module m;
  gt_error err;
} gt_jit_module_result;

/* Loading. dev_type < 0 keeps the devices saved in the file. */
gt_jit_module_result gt_jit_load(const char *path, int32_t dev_type, int32_t dev_index);
gt_jit_module_result gt_jit_load_bytes(const void *data, int64_t n, int32_t dev_type,
                                       int32_t dev_index);
void gt_jit_free(gt_jit_module m);

/* Calls method name with the arguments args (nargs trees laid one after
 * another in args[0..nv)). grad != 0 records autograd; 0 runs it under
 * no_grad. kwnames, when nkw > 0, names the last nkw arguments (NUL
 * separated). */
gt_jit_values gt_jit_call(gt_jit_module m, const char *name, const gt_jit_value *args,
                          int64_t nv, int64_t nargs, const char *strs, int64_t nstrs,
                          const char *kwnames, int64_t nkw, int grad);

/* Method names, NUL separated, in a malloc'd buffer of *n bytes. */
typedef struct gt_jit_bytes_s {
  char *p;
  int64_t n;
  gt_error err;
} gt_jit_bytes;
gt_jit_bytes gt_jit_method_names(gt_jit_module m);

/* Named parameters (buffers = 0) or buffers (buffers = 1), recursively,
 * with PyTorch's dotted names: names NUL separated in names, tensors in a
 * malloc'd array (new references); free the arrays with free via
 * gt_jit_named_free. */
typedef struct gt_jit_named_s {
  char *names;
  int64_t nnames;
  gt_tensor *ts;
  int64_t n;
  gt_error err;
} gt_jit_named;
gt_jit_named gt_jit_named_tensors(gt_jit_module m, int buffers);
void gt_jit_named_free(gt_jit_named *r);

gt_error gt_jit_to(gt_jit_module m, int32_t dev_type, int32_t dev_index);
gt_error gt_jit_train(gt_jit_module m, int on);
int gt_jit_is_training(gt_jit_module m);
gt_error gt_jit_set_requires_grad(gt_jit_module m, int on);

/* Serializes the module into a malloc'd buffer. */
gt_jit_bytes gt_jit_save(gt_jit_module m);
void gt_jit_bytes_free(gt_jit_bytes *b);

#ifdef __cplusplus
}
#endif

#endif /* GOTORCH_CGOTORCH_JIT_H_ */
