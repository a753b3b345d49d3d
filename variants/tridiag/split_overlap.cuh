// V2-async's ordering on a GPU (tridiag/split_phases.hpp: SplitOverlap, split_solve_rank_pipelined): the
// rank's compute stream and a message stream of its own, ordered by CUDA events, so that the host never
// waits and batch b's message travels while batch b + 1's kernels run. The message stream has the device's
// highest priority: a message's kernel (NCCL's) is then scheduled ahead of the waiting blocks of the
// compute kernel that runs beside it, rather than after it.
#pragma once

#include <cuda_runtime.h>

#include <vector>

#include "cuda/check.cuh"
#include "tridiag/split_phases.hpp"

namespace nsb {

class StreamSplitOverlap final : public SplitOverlap {
 public:
  // compute: the rank's stream (the caller's); the message stream is made here, on the current device.
  explicit StreamSplitOverlap(cudaStream_t compute) : compute_(compute) {
    int least = 0, greatest = 0;
    NSB_CUDA(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    NSB_CUDA(cudaEventCreateWithFlags(&computed_, cudaEventDisableTiming));
    const cudaError_t made = cudaStreamCreateWithPriority(&messages_, cudaStreamNonBlocking, greatest);
    if (made != cudaSuccess) cudaEventDestroy(computed_);  // the destructor does not run for a throwing constructor
    NSB_CUDA(made);
  }
  ~StreamSplitOverlap() override {  // no throw: the messages' last work is waited for, then everything released
    cudaStreamSynchronize(messages_);
    for (cudaEvent_t e : marks_) cudaEventDestroy(e);
    cudaEventDestroy(computed_);
    cudaStreamDestroy(messages_);
  }
  StreamSplitOverlap(const StreamSplitOverlap&) = delete;
  StreamSplitOverlap& operator=(const StreamSplitOverlap&) = delete;

  cudaStream_t message_stream() const { return messages_; }

  void start() override { used_ = 0; }
  // An event's record is taken by a wait when the wait is queued, so one event serves every hand-over.
  void messages_after_compute() override {
    NSB_CUDA(cudaEventRecord(computed_, compute_));
    NSB_CUDA(cudaStreamWaitEvent(messages_, computed_, 0));
  }
  int mark_messages() override {
    if (used_ == marks_.size()) {  // a solve's marks: two a batch at most, made once and reused
      marks_.push_back(nullptr);
      NSB_CUDA(cudaEventCreateWithFlags(&marks_.back(), cudaEventDisableTiming));
    }
    NSB_CUDA(cudaEventRecord(marks_[used_], messages_));
    return int(used_++);
  }
  void compute_after(int mark) override { NSB_CUDA(cudaStreamWaitEvent(compute_, marks_.at(std::size_t(mark)), 0)); }

 private:
  cudaStream_t compute_;
  cudaStream_t messages_ = nullptr;
  cudaEvent_t computed_ = nullptr;
  std::vector<cudaEvent_t> marks_;
  std::size_t used_ = 0;
};

}  // namespace nsb
