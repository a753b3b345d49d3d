// halo/mpi_host_staged: device -> pinned host buffer, MPI Isend/Irecv between neighbour processes,
// host -> device into the ghost planes. Works with any MPI library (CUDA-aware or not).
#include "mpi_comm.hpp"
#include "mpi_halo.hpp"
#include "peer_common.cuh"

namespace nsb {
namespace {

template <class T>
class MpiHostStaged final : public HaloExchange<T> {
 public:
  explicit MpiHostStaged(const RankContext& c) : c_(c), comm_(mpi_handle(*c.comm, "halo/mpi_host_staged")) {
    // [field 0..2][send lo, send hi, recv lo, recv hi] planes, page-locked.
    NSB_CUDA(cudaMallocHost(&host_, 3 * 4 * plane_elems(c.grid) * sizeof(T)));
  }
  ~MpiHostStaged() override { cudaFreeHost(host_); }
  void exchange(const std::vector<T*>& fields) override {
    const cudaStream_t stream = static_cast<cudaStream_t>(c_.stream);
    const Slab& s = c_.slab();
    const std::size_t elems = plane_elems(c_.grid), bytes = elems * sizeof(T);
    auto buf = [&](std::size_t f, int which) { return host_ + (f * 4 + std::size_t(which)) * elems; };
    std::vector<PlaneMessage> m;
    for (std::size_t f = 0; f < fields.size(); ++f) {
      if (s.has_lo()) NSB_CUDA(cudaMemcpyAsync(buf(f, 0), plane(fields[f], c_.grid, 1), bytes, cudaMemcpyDeviceToHost, stream));
      if (s.has_hi()) NSB_CUDA(cudaMemcpyAsync(buf(f, 1), plane(fields[f], c_.grid, s.nz), bytes, cudaMemcpyDeviceToHost, stream));
      m.push_back({buf(f, 2), buf(f, 3), buf(f, 0), buf(f, 1)});
    }
    NSB_CUDA(cudaStreamSynchronize(stream));  // also: the last exchange's host -> device copies are done
    exchange_planes(comm_, s, bytes, m);
    for (std::size_t f = 0; f < fields.size(); ++f) {
      if (s.has_lo()) NSB_CUDA(cudaMemcpyAsync(plane(fields[f], c_.grid, 0), buf(f, 2), bytes, cudaMemcpyHostToDevice, stream));
      if (s.has_hi()) NSB_CUDA(cudaMemcpyAsync(plane(fields[f], c_.grid, s.nz + 1), buf(f, 3), bytes, cudaMemcpyHostToDevice, stream));
    }
  }
  nlohmann::json describe() const override { return {{"host_memory", "pinned"}, {"device", c_.device}}; }

 private:
  RankContext c_;
  MPI_Comm comm_;
  T* host_ = nullptr;
};

template <class T>
std::unique_ptr<HaloExchange<T>> make(const RankContext& c) {
  return std::make_unique<MpiHostStaged<T>>(c);
}

const HaloRegistrar reg{{.name = "mpi_host_staged",
                         .backend = Backend::cuda,
                         .driver = "mpi",
                         .tags = {{"halo", "mpi"}, {"sync", "blocking"}, {"path", "host_staged"}},
                         .tunings = {},
                         .make_float = &make<float>,
                         .make_double = &make<double>}};

}  // namespace
}  // namespace nsb
