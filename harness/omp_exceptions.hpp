// An exception must not leave an OpenMP region (the runtime calls std::terminate: a core dump, no
// message): a loop body that may throw (an allocation of GBs) hands its exception to a FirstException,
// which rethrows it on the calling thread after the region.
//   FirstException failed;
//   #pragma omp parallel for
//   for (...) failed.run([&] { ... });
//   failed.rethrow();
#pragma once

#include <exception>
#include <mutex>

namespace nsb {

class FirstException {
 public:
  template <class F>
  void run(F&& body) {
    try {
      body();
    } catch (...) {
      const std::lock_guard<std::mutex> lock(mutex_);
      if (!first_) first_ = std::current_exception();
    }
  }
  void rethrow() const {
    if (first_) std::rethrow_exception(first_);
  }

 private:
  std::mutex mutex_;
  std::exception_ptr first_;
};

}  // namespace nsb
