// The plumbing every solver shares, written once (issue 40): the stream its steps run on, the section timer,
// the step counter and the time, and the helpers that bracket a stage call on the timer and in an NVTX range.
// A solver derives from SolverBase<T> and writes only its time loop, its state and its checks.
#pragma once

#include "device.hpp"
#include "nvtx.hpp"
#include "solver.hpp"
#include "timer.hpp"

namespace nsb {

template <class T>
class SolverBase : public Solver<T> {
 public:
  void set_timer(SectionTimer* t) override { timer_ = t; }
  void replayed(int steps) override {
    step_ += steps;
    time_ += steps * time_per_step_;
  }
  int step_index() const override { return step_; }
  // A steady solver's "time" is its iteration count.
  double time() const override { return time_per_step_ > 0 ? time_ : double(step_); }
  void sync() const override {
    if (stream_) device::stream_sync(stream_);
  }
  void* stream() const override { return stream_; }

 protected:
  // time_per_step: the dt a step advances the time by; 0 for a steady solver (local time steps, iterations).
  explicit SolverBase(double time_per_step) : time_per_step_(time_per_step) {}

  void begin(int section) {
    if (timer_) timer_->begin(section);
  }
  void end(int section) {
    if (timer_) timer_->end(section);
  }
  // `work` inside a timed section (and an NVTX range named `label`).
  template <class Work>
  void timed(int section, const char* label, const Work& work) {
    NvtxRange range(label);
    begin(section);
    work();
    end(section);
  }

  void* stream_ = nullptr;  // null on the CPU backends
  SectionTimer* timer_ = nullptr;
  int step_ = 0;
  double time_ = 0;

 private:
  double time_per_step_;
};

}  // namespace nsb
