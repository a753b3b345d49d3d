// A real rank's split-solve messages (tridiag/split_phases.hpp: SplitMessages) between GPUs by NCCL, one
// GPU a rank, under either driver: PPT's all-gather is ncclAllGather, PDD's neighbour messages a grouped
// ncclSend/ncclRecv pair. All on the rank's stream, so the host never waits: a send follows the kernels
// that wrote its buffer and precedes those that write it again (stream order), as the peer copies'
// host barriers (split_peer.cuh) ensure by waiting. Built only where NCCL is found (NSB_WITH_NCCL).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "cuda/nccl_comm.cuh"
#include "tridiag/split_phases.hpp"

namespace nsb {

template <class T>
class NcclSplitMessages final : public SplitMessages<T> {
 public:
  // comm: the run's NCCL communicator (kept by the caller); rank, ranks: this rank and the rank count.
  NcclSplitMessages(ncclComm_t comm, int rank, int ranks, cudaStream_t stream)
      : comm_(comm), rank_(rank), ranks_(ranks), stream_(stream) {}
  void allgather(const T* send, T* recv, std::size_t words) override {
    nccl_check(ncclAllGather(send, recv, words, nccl_type<T>(), comm_, stream_), "ncclAllGather (PPT)");
  }
  void from_next(const T* send, T* recv, std::size_t words) override { shift(rank_ - 1, rank_ + 1, send, recv, words); }
  void from_prev(const T* send, T* recv, std::size_t words) override { shift(rank_ + 1, rank_ - 1, send, recv, words); }

 private:
  // send to rank `to`, receive from rank `from` (either may be past the ends: no message).
  void shift(int to, int from, const T* send, T* recv, std::size_t words) {
    nccl_check(ncclGroupStart(), "ncclGroupStart");
    if (to >= 0 && to < ranks_) nccl_check(ncclSend(send, words, nccl_type<T>(), to, comm_, stream_), "ncclSend (PDD)");
    if (from >= 0 && from < ranks_) nccl_check(ncclRecv(recv, words, nccl_type<T>(), from, comm_, stream_), "ncclRecv (PDD)");
    nccl_check(ncclGroupEnd(), "ncclGroupEnd");
  }
  ncclComm_t comm_;
  int rank_, ranks_;
  cudaStream_t stream_;
};

}  // namespace nsb
