#include "comm.hpp"

#include <algorithm>
#include <cstring>
#include <string>

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

void ThreadGroup::post(int from, int to, const void* data, std::size_t bytes) {
  std::lock_guard<std::mutex> lock(m_);
  if (aborted_) throw PeerFailed("another rank failed: " + why_);
  mail_[std::size_t(from) * std::size_t(size_) + std::size_t(to)].emplace_back(static_cast<const char*>(data),
                                                                              static_cast<const char*>(data) + bytes);
  cv_.notify_all();
}

void ThreadGroup::take(int from, int to, void* data, std::size_t bytes) {
  std::unique_lock<std::mutex> lock(m_);
  std::deque<std::vector<char>>& box = mail_[std::size_t(from) * std::size_t(size_) + std::size_t(to)];
  cv_.wait(lock, [&] { return !box.empty() || aborted_; });
  if (box.empty()) throw PeerFailed("another rank failed: " + why_);
  if (box.front().size() != bytes)
    throw std::logic_error("neighbour_exchange: rank " + std::to_string(to) + " expects " + std::to_string(bytes) +
                           " bytes from rank " + std::to_string(from) + ", which sent " + std::to_string(box.front().size()));
  std::memcpy(data, box.front().data(), bytes);
  box.pop_front();
}

void ThreadComm::neighbour_exchange(const std::vector<Send>& sends, const std::vector<Recv>& recvs) {
  for (const Send& s : sends) g_->post(rank_, s.to, s.data, s.bytes);
  for (const Recv& r : recvs) g_->take(r.from, rank_, r.data, r.bytes);
}

// One rank: its messages to itself, matched in order.
void SingleComm::neighbour_exchange(const std::vector<Send>& sends, const std::vector<Recv>& recvs) {
  if (sends.size() != recvs.size()) throw std::logic_error("neighbour_exchange: one rank receives what it sends");
  for (std::size_t k = 0; k < sends.size(); ++k) {
    if (sends[k].to != 0 || recvs[k].from != 0 || sends[k].bytes != recvs[k].bytes)
      throw std::logic_error("neighbour_exchange: one rank, rank 0, receives what it sends, same sizes");
    std::memcpy(recvs[k].data, sends[k].data, sends[k].bytes);
  }
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
  // Root takes the slots, moved, not copied (a rank's slab of a large state is GBs): every rank writes its
  // slot anew before anyone reads it again.
  if (rank_ == root) {
    out.resize(g_->slots().size());
    for (std::size_t r = 0; r < out.size(); ++r) out[r] = std::move(g_->slots()[r]);
  }
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
