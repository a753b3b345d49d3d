// A run's NCCL communicator over its ranks, one GPU a rank, under either driver (the unique id goes round
// through the run's Communicator). Collective: every rank makes one at the same point, each with its own
// GPU current. NVLink SHARP multicast is switched off (NCCL_NVLS_ENABLE=0): point-to-point messages and
// all-gathers have no use for it, and it fails on some hosts. Built only where NCCL is found (NSB_WITH_NCCL).
#pragma once

#include <nccl.h>

#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "comm.hpp"
#include "placement.hpp"

namespace nsb {

inline void nccl_check(ncclResult_t r, const std::string& what) {
  if (r != ncclSuccess) throw std::runtime_error("NCCL error in " + what + ": " + ncclGetErrorString(r));
}
template <class T>
ncclDataType_t nccl_type() {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "NCCL messages of float or double");
  return sizeof(T) == 4 ? ncclFloat32 : ncclFloat64;
}

class NcclComm {
 public:
  // user: who asks (named in the refusal); instead: what runs ranks that share a GPU.
  NcclComm(Communicator& comm, int device, const std::string& user, const std::string& instead) {
    // Once a process (the threads driver's ranks share its environment), before the gather: no rank's NCCL
    // reads the environment while another thread writes it.
    static std::once_flag nvls_off;
    std::call_once(nvls_off, [] { setenv("NCCL_NVLS_ENABLE", "0", 1); });
    // Ranks are compared by physical GPU (host and PCI bus id, placement.hpp), never by device index: on two
    // nodes, or under per-rank binding, distinct GPUs share an index.
    const std::vector<RankPlacement> placements = gather_placements(comm, device);
    const auto [q, r] = ranks_sharing_a_gpu(placements);
    if (q >= 0)
      throw std::runtime_error(user + " needs one GPU per rank: ranks " + std::to_string(q) + " and " + std::to_string(r) +
                               " share GPU " + placements[std::size_t(r)].gpu + "; " + instead);
    ncclUniqueId id{};
    if (comm.rank() == 0) nccl_check(ncclGetUniqueId(&id), "ncclGetUniqueId");
    comm.broadcast(&id, sizeof id, 0);
    nccl_check(ncclCommInitRank(&comm_, comm.size(), id, comm.rank()), "ncclCommInitRank");
  }
  ~NcclComm() {
    if (comm_) ncclCommDestroy(comm_);
  }
  NcclComm(const NcclComm&) = delete;
  NcclComm& operator=(const NcclComm&) = delete;
  ncclComm_t get() const { return comm_; }

 private:
  ncclComm_t comm_ = nullptr;
};

}  // namespace nsb
