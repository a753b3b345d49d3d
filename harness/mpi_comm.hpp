// The Communicator of the MPI driver; MPI halo variants reach the MPI communicator through it.
#pragma once

#include <mpi.h>

#include "comm.hpp"

namespace nsb {

class MpiComm final : public Communicator {
 public:
  explicit MpiComm(MPI_Comm c);
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::string driver() const override { return "mpi"; }
  void barrier() override;
  double allreduce_sum(double x) override;
  double allreduce_max(double x) override;
  void broadcast(void* data, std::size_t bytes, int root) override;
  std::vector<std::vector<char>> allgather(const void* data, std::size_t bytes) override;
  std::vector<std::vector<char>> gather(const void* data, std::size_t bytes, int root) override;
  void neighbour_exchange(const std::vector<Send>& sends, const std::vector<Recv>& recvs) override;
  [[noreturn]] void abort(const std::string& why) override;
  MPI_Comm handle() const { return comm_; }

 private:
  MPI_Comm comm_;
  int rank_ = 0, size_ = 1;
};

// The MPI communicator behind a Communicator, or a clear error for a variant that needs MPI.
inline MPI_Comm mpi_handle(Communicator& c, const std::string& who) {
  if (auto* m = dynamic_cast<MpiComm*>(&c)) return m->handle();
  throw std::runtime_error(who + " needs the MPI driver (mpirun -np N nsbench run ...), not the " + c.driver() +
                           " driver");
}

}  // namespace nsb
