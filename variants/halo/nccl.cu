// halo/nccl: ncclSend/ncclRecv of the edge planes, grouped, on the compute stream: no host wait at
// all; NCCL picks NVLink or PCIe peer copies inside a node and the network between nodes. Works under
// both drivers (the unique id travels through the run's Communicator). NVLink SHARP multicast is
// switched off (NCCL_NVLS_ENABLE=0): a halo exchange has no use for it and it fails on some hosts.
#include "cuda/nccl_comm.cuh"
#include "peer_common.cuh"

namespace nsb {
namespace {

template <class T>
class Nccl final : public HaloExchange<T> {
 public:
  explicit Nccl(const RankContext& c)
      : c_(c), comm_(*c.comm, c.device, "halo/nccl", "use p2p_sync or mpi_host_staged to run more ranks than GPUs") {}
  void exchange(const std::vector<T*>& fields) override {
    const cudaStream_t stream = static_cast<cudaStream_t>(c_.stream);
    const Slab& s = c_.slab();
    const std::size_t n = plane_elems(c_.grid);
    const ncclDataType_t type = nccl_type<T>();
    // Within a group, messages between one pair of ranks match in order. Sends go down then up and
    // receives come from above then below, so with two ranks and periodic z (one neighbour on both
    // sides) the first plane sent is the first one received, into the right ghost plane.
    nccl_check(ncclGroupStart(), "ncclGroupStart");
    for (T* f : fields) {
      if (s.has_lo()) nccl_check(ncclSend(plane(f, c_.grid, 1), n, type, s.lo_rank, comm_.get(), stream), "ncclSend");
      if (s.has_hi()) nccl_check(ncclSend(plane(f, c_.grid, s.nz), n, type, s.hi_rank, comm_.get(), stream), "ncclSend");
      if (s.has_hi()) nccl_check(ncclRecv(plane(f, c_.grid, s.nz + 1), n, type, s.hi_rank, comm_.get(), stream), "ncclRecv");
      if (s.has_lo()) nccl_check(ncclRecv(plane(f, c_.grid, 0), n, type, s.lo_rank, comm_.get(), stream), "ncclRecv");
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
  NcclComm comm_;
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
