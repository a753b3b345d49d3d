// How the ranks of a decomposed run talk to each other outside the halo exchange: barriers, sums of
// reductions, a broadcast (NCCL's unique id), the gathers that build the result on rank 0, and
// point-to-point messages between neighbours (a solver's own exchange, e.g. the multiblock bands).
//
//   ThreadComm: ranks are threads of one process (the thesis's one host thread per GPU).
//   MpiComm:    ranks are MPI processes (comm_mpi.cpp, built when MPI is found).
//
// Every collective must be called by every rank in the same order. A rank that fails calls abort():
// the others then throw from their next collective (or receive) instead of waiting for ever.
// neighbour_exchange is not a collective: only the ranks a message joins take part.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

namespace nsb {

class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual std::string driver() const = 0;  // "threads" | "mpi" | "single"
  virtual void barrier() = 0;
  // Sum over ranks, added in rank order (the same on every rank and every run).
  virtual double allreduce_sum(double x) = 0;
  virtual double allreduce_max(double x) = 0;
  virtual void broadcast(void* data, std::size_t bytes, int root) = 0;
  // Every rank's `bytes` bytes, in rank order (equal sizes on all ranks).
  virtual std::vector<std::vector<char>> allgather(const void* data, std::size_t bytes) = 0;
  // Root receives every rank's vector (any sizes); other ranks get an empty result.
  virtual std::vector<std::vector<char>> gather(const void* data, std::size_t bytes, int root) = 0;
  // Point to point: this rank sends each of `sends` and receives each of `recvs`; no other rank takes part,
  // so ranks wait only on their neighbours. A receive names its sender and size (the sizes must match the
  // send's: a mismatch throws); messages between a pair arrive in the order sent, call by call. Returns
  // when every receive has arrived and every send buffer may be reused. Sends never wait for their
  // receive (ThreadComm copies them, MpiComm posts every receive first), so any pattern completes.
  struct Send {
    int to;
    const void* data;
    std::size_t bytes;
  };
  struct Recv {
    int from;
    void* data;
    std::size_t bytes;
  };
  virtual void neighbour_exchange(const std::vector<Send>& sends, const std::vector<Recv>& recvs) = 0;
  virtual void abort(const std::string& why) = 0;

  template <class T>
  std::vector<T> allgather_value(const T& v) {
    std::vector<T> out;
    for (const std::vector<char>& b : allgather(&v, sizeof v)) out.push_back(*reinterpret_cast<const T*>(b.data()));
    return out;
  }
};

// One rank alone: collectives are identities.
class SingleComm final : public Communicator {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  std::string driver() const override { return "single"; }
  void barrier() override {}
  double allreduce_sum(double x) override { return x; }
  double allreduce_max(double x) override { return x; }
  void broadcast(void*, std::size_t, int) override {}
  std::vector<std::vector<char>> allgather(const void* d, std::size_t n) override {
    return {std::vector<char>(static_cast<const char*>(d), static_cast<const char*>(d) + n)};
  }
  std::vector<std::vector<char>> gather(const void* d, std::size_t n, int) override { return allgather(d, n); }
  void neighbour_exchange(const std::vector<Send>& sends, const std::vector<Recv>& recvs) override;  // to itself only
  void abort(const std::string&) override {}
};

// State shared by the threads of one ThreadComm group.
class ThreadGroup {
 public:
  explicit ThreadGroup(int size) : size_(size), slots_(std::size_t(size)), mail_(std::size_t(size) * std::size_t(size)) {}
  int size() const { return size_; }
  void barrier();
  void abort(const std::string& why);
  std::vector<std::vector<char>>& slots() { return slots_; }
  // Point to point: a copy of the message into the pair's mailbox (never waits); the oldest message of
  // the pair into `data` (waits for it; throws PeerFailed when another rank failed first).
  void post(int from, int to, const void* data, std::size_t bytes);
  void take(int from, int to, void* data, std::size_t bytes);

 private:
  int size_;
  std::mutex m_;
  std::condition_variable cv_;
  int waiting_ = 0;
  long generation_ = 0;
  bool aborted_ = false;
  std::string why_;
  std::vector<std::vector<char>> slots_;
  std::vector<std::deque<std::vector<char>>> mail_;  // [from * size + to], oldest first
};

class ThreadComm final : public Communicator {
 public:
  ThreadComm(std::shared_ptr<ThreadGroup> g, int rank) : g_(std::move(g)), rank_(rank) {}
  int rank() const override { return rank_; }
  int size() const override { return g_->size(); }
  std::string driver() const override { return "threads"; }
  void barrier() override { g_->barrier(); }
  double allreduce_sum(double x) override;
  double allreduce_max(double x) override;
  void broadcast(void* data, std::size_t bytes, int root) override;
  std::vector<std::vector<char>> allgather(const void* data, std::size_t bytes) override;
  std::vector<std::vector<char>> gather(const void* data, std::size_t bytes, int root) override;
  void neighbour_exchange(const std::vector<Send>& sends, const std::vector<Recv>& recvs) override;
  void abort(const std::string& why) override { g_->abort(why); }

 private:
  std::shared_ptr<ThreadGroup> g_;
  int rank_;
};

// Thrown by a collective when another rank has failed.
struct PeerFailed : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace nsb
