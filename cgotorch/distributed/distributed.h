/* distributed.h: the C ABI of GoTorch's c10d binding (stores, process
 * groups, collectives, work handles) and of the DDP gradient reducer.
 * Every function returns its error (gt_error, NULL on success) in the same
 * call; handles are freed with their *_free function. */
#ifndef GOTORCH_CGOTORCH_DISTRIBUTED_H_
#define GOTORCH_CGOTORCH_DISTRIBUTED_H_

#include "cgotorch.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gt_dist_store_s *gt_dist_store;
typedef struct gt_dist_pg_s *gt_dist_pg;
typedef struct gt_dist_work_s *gt_dist_work;
typedef struct gt_dist_reducer_s *gt_dist_reducer;

/* Stores. */
gt_error gt_dist_tcp_store(const char *host, int port, int is_server, int world_size,
                           int64_t timeout_ms, gt_dist_store *out);
gt_error gt_dist_file_store(const char *path, int world_size, gt_dist_store *out);
gt_error gt_dist_prefix_store(const char *prefix, gt_dist_store base, gt_dist_store *out);
void gt_dist_store_free(gt_dist_store s);
gt_error gt_dist_store_set(gt_dist_store s, const char *key, const void *val, int64_t n);
/* get waits for key (up to the store's timeout); *val is malloc'd, free it with free(). */
gt_error gt_dist_store_get(gt_dist_store s, const char *key, void **val, int64_t *n);
gt_error gt_dist_store_add(gt_dist_store s, const char *key, int64_t delta, int64_t *out);
gt_error gt_dist_store_check(gt_dist_store s, const char *key, int *out);

/* Process groups. backend: 0 gloo, 1 nccl. iface and host may be empty. */
gt_error gt_dist_pg_new(int backend, gt_dist_store s, int rank, int size, int64_t timeout_ms,
                        const char *iface, const char *host, int threads, gt_dist_pg *out);
void gt_dist_pg_free(gt_dist_pg pg);
int gt_dist_has_nccl(void);

/* Collectives; each starts the op and returns its work handle. op: 0 sum,
 * 1 avg, 2 product, 3 min, 4 max. */
gt_error gt_dist_allreduce(gt_dist_pg pg, gt_tensor *ts, int64_t n, int op, gt_dist_work *out);
gt_error gt_dist_broadcast(gt_dist_pg pg, gt_tensor *ts, int64_t n, int root, gt_dist_work *out);
gt_error gt_dist_allgather(gt_dist_pg pg, gt_tensor *outs, int64_t n, gt_tensor in, gt_dist_work *out);
gt_error gt_dist_reduce_scatter(gt_dist_pg pg, gt_tensor out, gt_tensor *ins, int64_t n, int op,
                                gt_dist_work *w);
gt_error gt_dist_barrier(gt_dist_pg pg, gt_dist_work *out);
gt_error gt_dist_send(gt_dist_pg pg, gt_tensor t, int dst, int tag, gt_dist_work *out);
gt_error gt_dist_recv(gt_dist_pg pg, gt_tensor t, int src, int tag, gt_dist_work *out);

/* broadcast_coalesced copies root's tensors into every rank's, flattened
 * into buffers of up to buffer_bytes per dtype (c10d::broadcast_coalesced,
 * as PyTorch's DDP syncs module states); it returns when done. */
gt_error gt_dist_broadcast_coalesced(gt_dist_pg pg, gt_tensor *ts, int64_t n, int root, int64_t buffer_bytes);

/* wait blocks until the op ends (or timeout_ms, when > 0, passes). */
gt_error gt_dist_work_wait(gt_dist_work w, int64_t timeout_ms);
int gt_dist_work_completed(gt_dist_work w);
void gt_dist_work_free(gt_dist_work w);

/* DDP: c10d's Reducer on pg, over params, with PyTorch DDP's bucket
 * assignment (first_bucket_bytes, then bucket_bytes each). It hooks the
 * gradient accumulators; a backward after after_forward averages the
 * gradients across the group (bucketed, overlapped with backward), and
 * fails with an error naming a dead rank. */
gt_error gt_dist_reducer_new(gt_dist_pg pg, gt_tensor *params, int64_t n, int64_t bucket_bytes,
                             int64_t first_bucket_bytes, int find_unused, gt_dist_reducer *out);
/* before_forward runs before every forward (sync: 0 under no_sync): it
 * checks that the last synced backward finished its reduction and rebuilds
 * the buckets once; after_forward (synced forwards only) arms the hooks for
 * the next backward; with find_unused, outputs are the forward's outputs,
 * from which the parameters left out of the graph are found. Both do
 * nothing when grad mode is off. */
gt_error gt_dist_reducer_before_forward(gt_dist_reducer r, int sync);
gt_error gt_dist_reducer_after_forward(gt_dist_reducer r, gt_tensor *outputs, int64_t n);
/* buckets is the number of buckets (-1 if the Reducer cannot tell). */
int64_t gt_dist_reducer_buckets(gt_dist_reducer r);
/* comm_ns: nanoseconds the bucket all-reduces took, each from its start to
 * its end (they overlap backward and each other), summed since creation. */
int64_t gt_dist_reducer_comm_ns(gt_dist_reducer r);
/* error of the last failed reduction (NULL if none), then cleared. */
gt_error gt_dist_reducer_error(gt_dist_reducer r);
void gt_dist_reducer_free(gt_dist_reducer r);

/* SyncBatchNorm (syncbn.cc): batch norm of input (N, C, ...) in training
 * with the statistics of the whole group (an all_gather in forward, an
 * all_reduce in the backward of the result), updating running_mean and
 * running_var; weight, bias and the running statistics may be NULL.
 * Every rank of pg must call it, in the same order. */
gt_error gt_dist_sync_batch_norm(gt_dist_pg pg, gt_tensor input, gt_tensor weight, gt_tensor bias,
                                 gt_tensor running_mean, gt_tensor running_var, double eps, double momentum,
                                 gt_tensor *out);

#ifdef __cplusplus
}
#endif

#endif
