// A real rank's split-solve messages (tridiag/split_phases.hpp: SplitMessages) between GPUs, one host
// thread and GPU a rank (the threads driver): peer copies of the other ranks' send buffers, whose
// addresses go round once a message through the Communicator. Synchronous, as the paper's Algorithm 1:
// a rank's stream is drained before it shows its buffer (the data is written), and every rank's copies
// have landed before anyone goes on (no sender overwrites a buffer still being read). Without peer
// access cudaMemcpyPeerAsync stages through the host; ranks on one GPU copy within it.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "comm.hpp"
#include "cuda/check.cuh"
#include "common/traversals.cuh"
#include "tridiag/split_phases.cuh"
#include "tridiag/split_ranks.hpp"

namespace nsb {

template <class T>
class PeerSplitMessages final : public SplitMessages<T> {
 public:
  PeerSplitMessages(Communicator& comm, cudaStream_t stream, int device)
      : comm_(comm), stream_(stream), device_(device), devices_(comm.allgather_value(device)) {}
  void allgather(const T* send, T* recv, std::size_t words) override {
    const std::vector<const T*> from = shown(send);
    for (int i = 0; i < comm_.size(); ++i) copy(recv + std::size_t(i) * words, from, i, words);
    landed();
  }
  void from_next(const T* send, T* recv, std::size_t words) override {
    const std::vector<const T*> from = shown(send);
    if (comm_.rank() + 1 < comm_.size()) copy(recv, from, comm_.rank() + 1, words);
    landed();
  }
  void from_prev(const T* send, T* recv, std::size_t words) override {
    const std::vector<const T*> from = shown(send);
    if (comm_.rank() > 0) copy(recv, from, comm_.rank() - 1, words);
    landed();
  }

 private:
  std::vector<const T*> shown(const T* send) {
    NSB_CUDA(cudaStreamSynchronize(stream_));
    return comm_.allgather_value(send);
  }
  void copy(T* dst, const std::vector<const T*>& from, int source, std::size_t words) {
    NSB_CUDA(cudaMemcpyPeerAsync(dst, device_, from[std::size_t(source)], devices_[std::size_t(source)], words * sizeof(T), stream_));
  }
  void landed() {
    NSB_CUDA(cudaStreamSynchronize(stream_));
    comm_.barrier();
  }
  Communicator& comm_;
  cudaStream_t stream_;
  int device_;
  std::vector<int> devices_;
};

// A rank's side of tridiag/split_ranks.hpp on GPUs: rank r on GPU r % gpus, its own stream, peer messages.
template <class T>
struct DeviceRankSide {
  int gpus = 1, block = 128;
  int device = 0;
  cudaStream_t stream = nullptr;
  void enter(int r) {
    device = r % gpus;
    NSB_CUDA(cudaSetDevice(device));
    NSB_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  }
  bool on_device() const { return true; }
  void copy(T* dst, const T* src, std::size_t words) const {  // the call's arrays may be on another GPU (UVA)
    NSB_CUDA(cudaMemcpyAsync(dst, src, words * sizeof(T), cudaMemcpyDefault, stream));
  }
  DeviceSplitLaunch launch() const { return {stream, block}; }
  std::unique_ptr<SplitMessages<T>> messages(Communicator& comm) const {
    return std::make_unique<PeerSplitMessages<T>>(comm, stream, device);
  }
  void sync() const { NSB_CUDA(cudaStreamSynchronize(stream)); }
  void leave() {
    NSB_CUDA(cudaStreamDestroy(stream));
    stream = nullptr;
  }
};

// tridiag/pdd and tridiag/ppt on c.ranks real ranks (GPUs r % count): the call's systems scattered to the
// ranks' blocks, solved there with their messages, gathered back.
template <class T, bool kPpt>
void run_split_on_ranks(const TridiagCall<T>& c) {
  check_tridiag_call(c);
  if (c.ranks < 2) throw std::invalid_argument("tridiag: PDD and PPT split each line into 2 blocks or more");
  if (c.ranks > kPptMaxRanks) throw std::invalid_argument("tridiag: at most " + std::to_string(kPptMaxRanks) + " ranks");
  int gpus = 0;
  NSB_CUDA(cudaGetDeviceCount(&gpus));
  NSB_CUDA(cudaStreamSynchronize(stream_of(c.exec)));  // the call's right-hand sides are written
  split_call_on_ranks(c, kPpt, DeviceRankSide<T>{gpus, c.tuning.bx > 0 ? c.tuning.bx : 128});
}

}  // namespace nsb
