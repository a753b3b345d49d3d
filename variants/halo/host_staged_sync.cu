// halo/host_staged_sync: the thesis's exchange (Sec. 3.2.3, App. A.2). Each rank copies its edge
// planes device -> host, the ranks meet at a barrier, each copies its neighbours' planes host ->
// device into its ghost planes, and a second barrier keeps a rank from overwriting a host plane a
// neighbour is still reading. Tunings: pinned (page-locked, DMA straight from the buffer) or pageable
// host memory (the driver stages it through its own pinned buffer, as in 2009 without cudaHostAlloc).
#include <cstring>

#include "peer_common.cuh"

namespace nsb {
namespace {

template <class T>
class HostStagedSync final : public HaloExchange<T> {
 public:
  explicit HostStagedSync(const RankContext& c) : c_(c), pinned_(c.tuning.name != "pageable") {}
  ~HostStagedSync() override {
    if (pinned_ && host_) cudaFreeHost(host_);
  }
  void attach(const std::vector<T*>& buffers) override {
    mine_ = buffers;
    // Send planes: [field slot 0..2][side 0 = my plane 1 (down), 1 = my plane nz (up)].
    const std::size_t n = 3 * 2 * plane_elems(c_.grid);
    if (pinned_) {
      NSB_CUDA(cudaMallocHost(&host_, n * sizeof(T)));
    } else {
      pageable_.assign(n, T(0));
      host_ = pageable_.data();
    }
    host_of_rank_ = c_.comm->allgather_value(host_);
  }
  void exchange(const std::vector<T*>& fields) override {
    const cudaStream_t stream = static_cast<cudaStream_t>(c_.stream);
    const Slab& s = c_.slab();
    const std::size_t elems = plane_elems(c_.grid), bytes = elems * sizeof(T);
    auto slot = [&](T* base, std::size_t f, int side) { return base + (f * 2 + std::size_t(side)) * elems; };
    for (std::size_t f = 0; f < fields.size(); ++f) {
      if (s.has_lo()) NSB_CUDA(cudaMemcpyAsync(slot(host_, f, 0), plane(fields[f], c_.grid, 1), bytes, cudaMemcpyDeviceToHost, stream));
      if (s.has_hi()) NSB_CUDA(cudaMemcpyAsync(slot(host_, f, 1), plane(fields[f], c_.grid, s.nz), bytes, cudaMemcpyDeviceToHost, stream));
    }
    NSB_CUDA(cudaStreamSynchronize(stream));
    c_.comm->barrier();
    for (std::size_t f = 0; f < fields.size(); ++f) {
      if (s.has_lo())  // the lower neighbour's upward plane
        NSB_CUDA(cudaMemcpyAsync(plane(fields[f], c_.grid, 0), slot(host_of_rank_[std::size_t(s.lo_rank)], f, 1), bytes,
                                 cudaMemcpyHostToDevice, stream));
      if (s.has_hi())
        NSB_CUDA(cudaMemcpyAsync(plane(fields[f], c_.grid, s.nz + 1), slot(host_of_rank_[std::size_t(s.hi_rank)], f, 0),
                                 bytes, cudaMemcpyHostToDevice, stream));
    }
    NSB_CUDA(cudaStreamSynchronize(stream));
    c_.comm->barrier();
  }
  nlohmann::json describe() const override { return {{"host_memory", pinned_ ? "pinned" : "pageable"}}; }

 private:
  RankContext c_;
  bool pinned_;
  std::vector<T*> mine_;
  T* host_ = nullptr;
  std::vector<T> pageable_;
  std::vector<T*> host_of_rank_;
};

template <class T>
std::unique_ptr<HaloExchange<T>> make(const RankContext& c) {
  return std::make_unique<HostStagedSync<T>>(c);
}

const HaloRegistrar reg{{.name = "host_staged_sync",
                         .backend = Backend::cuda,
                         .driver = "threads",
                         .tags = {{"halo", "host_staged"}, {"sync", "blocking"}},
                         .tunings = {{"pinned"}, {"pageable"}},
                         .make_float = &make<float>,
                         .make_double = &make<double>}};

}  // namespace
}  // namespace nsb
