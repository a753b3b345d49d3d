// halo/mpi_cuda_aware: device pointers handed straight to MPI, which moves them itself (GPUDirect
// P2P or RDMA). Only with an MPI library that is CUDA-aware: the variant asks the library
// (MPIX_Query_cuda_support) and refuses to start, saying why, instead of letting MPI read device
// memory as host memory and crash - the trap peer projects fall into.
#include "mpi_comm.hpp"
#include "mpi_driver.hpp"
#include "mpi_halo.hpp"
#include "peer_common.cuh"

namespace nsb {
namespace {

template <class T>
class MpiCudaAware final : public HaloExchange<T> {
 public:
  explicit MpiCudaAware(const RankContext& c) : c_(c), comm_(mpi_handle(*c.comm, "halo/mpi_cuda_aware")) {
    const std::string why = mpi::cuda_aware_unavailable_reason();
    if (!why.empty())
      throw std::runtime_error("halo/mpi_cuda_aware is not available: " + why +
                               "; use --halo mpi_host_staged (or nccl) with this MPI");
  }
  void exchange(const std::vector<T*>& fields) override {
    const Slab& s = c_.slab();
    std::vector<PlaneMessage> m;
    for (T* f : fields)
      m.push_back({plane(f, c_.grid, 0), plane(f, c_.grid, s.nz + 1), plane(f, c_.grid, 1), plane(f, c_.grid, s.nz)});
    NSB_CUDA(cudaStreamSynchronize(static_cast<cudaStream_t>(c_.stream)));  // MPI reads what the stream wrote
    exchange_planes(comm_, s, plane_elems(c_.grid) * sizeof(T), m);
  }
  nlohmann::json describe() const override { return {{"cuda_aware", true}, {"device", c_.device}}; }

 private:
  RankContext c_;
  MPI_Comm comm_;
};

template <class T>
std::unique_ptr<HaloExchange<T>> make(const RankContext& c) {
  return std::make_unique<MpiCudaAware<T>>(c);
}

const HaloRegistrar reg{{.name = "mpi_cuda_aware",
                         .backend = Backend::cuda,
                         .driver = "mpi",
                         .tags = {{"halo", "mpi"}, {"sync", "blocking"}, {"path", "cuda_aware"}},
                         .tunings = {},
                         .make_float = &make<float>,
                         .make_double = &make<double>}};

}  // namespace
}  // namespace nsb
