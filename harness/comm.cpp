#include "comm.hpp"

#include <algorithm>
#include <cstring>

namespace nsb {

void ThreadGroup::barrier() {
  std::unique_lock<std::mutex> lock(m_);
  if (aborted_) throw PeerFailed("another rank failed: " + why_);
  const long gen = generation_;
  if (++waiting_ == size_) {
    waiting_ = 0;
    ++generation_;
    cv_.notify_all();
    return;
  }
  cv_.wait(lock, [&] { return generation_ != gen || aborted_; });
  if (generation_ == gen) throw PeerFailed("another rank failed: " + why_);
}

void ThreadGroup::abort(const std::string& why) {
  std::lock_guard<std::mutex> lock(m_);
  if (!aborted_) why_ = why;
  aborted_ = true;
  cv_.notify_all();
}

// Collectives: write my slot, barrier, read what I need, barrier (so no slot is rewritten early).
std::vector<std::vector<char>> ThreadComm::allgather(const void* data, std::size_t bytes) {
  g_->slots()[std::size_t(rank_)].assign(static_cast<const char*>(data), static_cast<const char*>(data) + bytes);
  g_->barrier();
  std::vector<std::vector<char>> out = g_->slots();
  g_->barrier();
  return out;
}

std::vector<std::vector<char>> ThreadComm::gather(const void* data, std::size_t bytes, int root) {
  g_->slots()[std::size_t(rank_)].assign(static_cast<const char*>(data), static_cast<const char*>(data) + bytes);
  g_->barrier();
  std::vector<std::vector<char>> out;
  if (rank_ == root) out = g_->slots();
  g_->barrier();
  return out;
}

double ThreadComm::allreduce_sum(double x) {
  double s = 0;
  for (double v : allgather_value(x)) s += v;
  return s;
}

double ThreadComm::allreduce_max(double x) {
  const std::vector<double> all = allgather_value(x);
  return *std::max_element(all.begin(), all.end());
}

void ThreadComm::broadcast(void* data, std::size_t bytes, int root) {
  const std::vector<std::vector<char>> all = allgather(data, bytes);
  std::memcpy(data, all[std::size_t(root)].data(), bytes);
}

}  // namespace nsb
