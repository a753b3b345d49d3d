// halo/nccl: ncclSend/ncclRecv of the edge planes, grouped, on the compute stream: no host wait at
// all; NCCL picks NVLink or PCIe peer copies inside a node and the network between nodes. Works under
// both drivers (the unique id travels through the run's Communicator). NVLink SHARP multicast is
// switched off (NCCL_NVLS_ENABLE=0): a halo exchange has no use for it and it fails on some hosts.
#include <nccl.h>

#include <cstdlib>

#include "peer_common.cuh"

namespace nsb {
namespace {

void nccl_check(ncclResult_t r, const char* what) {
  if (r != ncclSuccess) throw std::runtime_error(std::string("NCCL error in ") + what + ": " + ncclGetErrorString(r));
}

template <class T>
class Nccl final : public HaloExchange<T> {
 public:
  explicit Nccl(const RankContext& c) : c_(c) {
    const std::vector<int> devices = c.comm->allgather_value(c.device);
    for (std::size_t r = 1; r < devices.size(); ++r)
      for (std::size_t q = 0; q < r; ++q)
        if (devices[r] == devices[q])
          throw std::runtime_error("halo/nccl needs one GPU per rank: ranks " + std::to_string(q) + " and " +
                                   std::to_string(r) + " share GPU " + std::to_string(devices[r]) +
                                   "; use p2p_sync or mpi_host_staged to run more ranks than GPUs");
    setenv("NCCL_NVLS_ENABLE", "0", 1);
    ncclUniqueId id{};
    if (c.comm->rank() == 0) nccl_check(ncclGetUniqueId(&id), "ncclGetUniqueId");
    c.comm->broadcast(&id, sizeof id, 0);
    nccl_check(ncclCommInitRank(&comm_, c.comm->size(), id, c.comm->rank()), "ncclCommInitRank");
  }
  ~Nccl() override {
    if (comm_) ncclCommDestroy(comm_);
  }
  void exchange(const std::vector<T*>& fields) override {
    const cudaStream_t stream = static_cast<cudaStream_t>(c_.stream);
    const Slab& s = c_.slab();
    const std::size_t n = plane_elems(c_.grid);
    const ncclDataType_t type = sizeof(T) == 4 ? ncclFloat32 : ncclFloat64;
    // Within a group, messages between one pair of ranks match in order. Sends go down then up and
    // receives come from above then below, so with two ranks and periodic z (one neighbour on both
    // sides) the first plane sent is the first one received, into the right ghost plane.
    nccl_check(ncclGroupStart(), "ncclGroupStart");
    for (T* f : fields) {
      if (s.has_lo()) nccl_check(ncclSend(plane(f, c_.grid, 1), n, type, s.lo_rank, comm_, stream), "ncclSend");
      if (s.has_hi()) nccl_check(ncclSend(plane(f, c_.grid, s.nz), n, type, s.hi_rank, comm_, stream), "ncclSend");
      if (s.has_hi()) nccl_check(ncclRecv(plane(f, c_.grid, s.nz + 1), n, type, s.hi_rank, comm_, stream), "ncclRecv");
      if (s.has_lo()) nccl_check(ncclRecv(plane(f, c_.grid, 0), n, type, s.lo_rank, comm_, stream), "ncclRecv");
    }
    nccl_check(ncclGroupEnd(), "ncclGroupEnd");
  }
  nlohmann::json describe() const override {
    int version = 0;
    ncclGetVersion(&version);
    return {{"nccl_version", version}, {"nvls", "disabled (NCCL_NVLS_ENABLE=0)"}, {"device", c_.device}};
  }

 private:
  RankContext c_;
  ncclComm_t comm_ = nullptr;
};

template <class T>
std::unique_ptr<HaloExchange<T>> make(const RankContext& c) {
  return std::make_unique<Nccl<T>>(c);
}

const HaloRegistrar reg{{.name = "nccl",
                         .backend = Backend::cuda,
                         .driver = "any",
                         .tags = {{"halo", "nccl"}, {"sync", "stream_ordered"}},
                         .tunings = {},
                         .make_float = &make<float>,
                         .make_double = &make<double>}};

}  // namespace
}  // namespace nsb
