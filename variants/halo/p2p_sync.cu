// halo/p2p_sync: each rank pushes its edge planes into its neighbours' ghost planes with
// cudaMemcpyPeerAsync on its compute stream, once the neighbours' streams have done what they queued
// before the exchange (NeighboursReady: a host barrier and event waits on the GPU), waits for the
// copies, then meets the other ranks at a second host barrier: when every rank has passed it, every
// ghost plane is current.
#include "peer_common.cuh"

namespace nsb {
namespace {

template <class T>
class P2pSync final : public HaloExchange<T> {
 public:
  explicit P2pSync(const RankContext& c) : c_(c) {}
  void attach(const std::vector<T*>& buffers) override {
    peers_.attach(c_, buffers);
    ready_.attach(c_);
    const Slab& s = c_.slab();
    direct_lo_ = s.has_lo() && enable_peer_access(c_.device, peers_.device(s.lo_rank));
    direct_hi_ = s.has_hi() && enable_peer_access(c_.device, peers_.device(s.hi_rank));
  }
  void exchange(const std::vector<T*>& fields) override {
    const cudaStream_t stream = static_cast<cudaStream_t>(c_.stream);
    ready_.wait(c_, stream);
    push_edges(c_, peers_, fields, stream);
    NSB_CUDA(cudaStreamSynchronize(stream));
    c_.comm->barrier();
  }
  nlohmann::json describe() const override { return peer_description(c_, direct_lo_, direct_hi_); }

 private:
  RankContext c_;
  PeerArrays<T> peers_;
  NeighboursReady ready_;
  bool direct_lo_ = false, direct_hi_ = false;
};

template <class T>
std::unique_ptr<HaloExchange<T>> make(const RankContext& c) {
  return std::make_unique<P2pSync<T>>(c);
}

const HaloRegistrar reg{{.name = "p2p_sync",
                         .backend = Backend::cuda,
                         .driver = "threads",
                         .tags = {{"halo", "p2p"}, {"sync", "blocking"}},
                         .tunings = {},
                         .make_float = &make<float>,
                         .make_double = &make<double>}};

}  // namespace
}  // namespace nsb
