// Section timers: the solver brackets every stage call (and every whole step) with begin/end.
// CpuTimer reads steady_clock at once; GpuTimer records CUDA events on the solver's stream from a
// pool and reads them back only when the pool is full or at flush(), so timing adds no host
// synchronisation inside a time step. Every raw sample is kept.
#pragma once

#include <chrono>
#include <memory>
#include <stdexcept>
#include <vector>

#include "device.hpp"

namespace nsb {

struct Sample {
  int section;  // an index into the solver's sections (SolverDef::sections), or kStepSection
  int step;     // time-step index the sample belongs to
  double seconds;
};
constexpr int kStepSection = -2;  // the whole time step (-1 means outside any section in profiles)

class SectionTimer {
 public:
  virtual ~SectionTimer() = default;
  virtual void begin(int section) = 0;
  virtual void end(int section) = 0;
  virtual void flush() {}
  void set_step(int s) { step_ = s; }
  const std::vector<Sample>& samples() { flush(); return samples_; }
  void clear() { flush(); samples_.clear(); }
  bool enabled = true;  // false: begin/end do nothing (warm-up steps, reference runs)

 protected:
  int step_ = 0;
  std::vector<Sample> samples_;
};

class CpuTimer final : public SectionTimer {
 public:
  void begin(int section) override {
    if (enabled) open_.push_back({section, std::chrono::steady_clock::now()});
  }
  void end(int section) override {
    if (!enabled) return;
    const auto t1 = std::chrono::steady_clock::now();
    const auto [s, t0] = open_.back();
    open_.pop_back();
    (void)section;
    samples_.push_back({s, step_, std::chrono::duration<double>(t1 - t0).count()});
  }

 private:
  std::vector<std::pair<int, std::chrono::steady_clock::time_point>> open_;
};

class GpuTimer final : public SectionTimer {
 public:
  explicit GpuTimer(void* stream, std::size_t pool_pairs = 8192) : stream_(stream), pool_(pool_pairs) {
    for (std::size_t i = pool_pairs; i-- > 0;) free_.push_back(i);
  }
  void begin(int section) override {
    if (!enabled) return;
    if (free_.empty()) harvest_closed();
    const std::size_t slot = free_.back();
    free_.pop_back();
    pool_.record_start(slot, stream_);
    open_.push_back(pending_.size());
    pending_.push_back({section, step_, slot, false});
  }
  void end(int) override {
    if (!enabled) return;
    Pending& p = pending_[open_.back()];
    open_.pop_back();
    pool_.record_stop(p.slot, stream_);
    p.closed = true;
  }
  void flush() override { harvest_closed(); }

 private:
  struct Pending {
    int section, step;
    std::size_t slot;
    bool closed;
  };
  // Reads every closed section (waiting for its stop event) and returns its slot to the pool; open
  // sections (an enclosing whole-step range) keep theirs.
  void harvest_closed() {
    std::vector<Pending> still_open;
    for (const Pending& p : pending_) {
      if (!p.closed) {
        still_open.push_back(p);
        continue;
      }
      samples_.push_back({p.section, p.step, pool_.elapsed_seconds(p.slot)});
      free_.push_back(p.slot);
    }
    pending_ = still_open;
    open_.clear();
    for (std::size_t i = 0; i < pending_.size(); ++i) open_.push_back(i);
    if (free_.empty()) throw std::runtime_error("GpuTimer: more nested open sections than event pairs");
  }
  void* stream_;
  device::EventPool pool_;
  std::vector<std::size_t> free_;
  std::vector<std::size_t> open_;  // indices into pending_ of sections begun and not yet ended
  std::vector<Pending> pending_;
};

}  // namespace nsb
