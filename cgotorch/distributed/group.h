// group.h: what distributed.cc and syncbn.cc share: a process group's
// handle and the error of a failed collective. Not part of the C ABI.
#ifndef GOTORCH_CGOTORCH_DISTRIBUTED_GROUP_H_
#define GOTORCH_CGOTORCH_DISTRIBUTED_GROUP_H_

#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>

#include <atomic>
#include <chrono>
#include <exception>
#include <mutex>
#include <string>

#include "distributed.h"

struct gt_dist_pg_s {
  c10::intrusive_ptr<c10d::ProcessGroupGloo> pg;
  // group is what c10d's Reducer and broadcast_coalesced take: up to
  // libtorch 1.13 the Gloo group itself; from 2.0, where ProcessGroupGloo is
  // a Backend, a ProcessGroup that dispatches CPU tensors to it.
  c10::intrusive_ptr<c10d::ProcessGroup> group;
  c10::intrusive_ptr<c10d::Store> store;
  std::string store_desc;
  int rank = 0, size = 1;
  std::chrono::milliseconds timeout{0};
  std::atomic<int64_t> seq{0};
  std::atomic<bool> probed{false};
  std::string probe_result;
  std::mutex probe_mu;
};

namespace gtdist {

// fail turns the exception of op (the seq-th of pg) into an error naming
// the op, this rank and, when a peer is dead, that peer.
[[noreturn]] void fail(gt_dist_pg pg, const std::string &op, int64_t seq, const std::exception &e);

}  // namespace gtdist

#endif
