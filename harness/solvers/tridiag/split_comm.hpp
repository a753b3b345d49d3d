// The messages of a real rank's split solve (tridiag/split_phases.hpp: SplitMessages) on host arrays,
// through the run's Communicator (threads or MPI). It has collectives only, so PDD's neighbour messages
// are an all-gather of which each rank keeps its neighbour's part: the numbers are PDD's, the bytes moved
// p times PDD's (a GPU run sends them by peer copies: variants/tridiag/split_peer.cuh).
#pragma once

#include <cstddef>
#include <cstring>
#include <vector>

#include "comm.hpp"
#include "tridiag/split_phases.hpp"

namespace nsb {

template <class T>
class CommSplitMessages final : public SplitMessages<T> {
 public:
  explicit CommSplitMessages(Communicator& comm) : comm_(comm) {}
  void allgather(const T* send, T* recv, std::size_t words) override {
    const std::vector<std::vector<char>> all = comm_.allgather(send, words * sizeof(T));
    for (std::size_t i = 0; i < all.size(); ++i) std::memcpy(recv + i * words, all[i].data(), words * sizeof(T));
  }
  void from_next(const T* send, T* recv, std::size_t words) override { from(comm_.rank() + 1, send, recv, words); }
  void from_prev(const T* send, T* recv, std::size_t words) override { from(comm_.rank() - 1, send, recv, words); }

 private:
  void from(int source, const T* send, T* recv, std::size_t words) {
    const std::vector<std::vector<char>> all = comm_.allgather(send, words * sizeof(T));
    if (source >= 0 && source < comm_.size()) std::memcpy(recv, all[std::size_t(source)].data(), words * sizeof(T));
  }
  Communicator& comm_;
};

}  // namespace nsb
