// halo/p2p_async_overlap: the solver computes the two edge planes first; start() sends them to the
// neighbours on a separate stream while the compute stream does the interior; finish() makes the
// compute stream wait (on the GPU, not the host) for the neighbours' copies into this rank's ghosts.
//
// Ordering without host waits for the GPU, two host barriers a round:
// - the pushes into a neighbour's ghost planes wait for everything the neighbour's compute stream and mine
//   had queued when start() was called (NeighboursReady, peer_common.cuh): the edge planes I send are
//   computed, and the neighbour has finished reading the ghosts' previous values and writing its own into
//   them (its ghost rules, e.g. CG's periodic wrap of a cut face);
// - a neighbour's "sent" event is recorded once its pushes into my ghost planes are queued; the second
//   barrier guarantees every rank has recorded this round's event before anyone waits on it in finish().
#include "peer_common.cuh"

namespace nsb {
namespace {

template <class T>
class P2pAsyncOverlap final : public HaloExchange<T> {
 public:
  explicit P2pAsyncOverlap(const RankContext& c) : c_(c) {
    NSB_CUDA(cudaStreamCreateWithFlags(&halo_stream_, cudaStreamNonBlocking));
    NSB_CUDA(cudaEventCreateWithFlags(&sent_, cudaEventDisableTiming));
  }
  ~P2pAsyncOverlap() override {
    cudaStreamSynchronize(halo_stream_);
    cudaEventDestroy(sent_);
    cudaStreamDestroy(halo_stream_);
  }
  void attach(const std::vector<T*>& buffers) override {
    peers_.attach(c_, buffers);
    ready_.attach(c_);
    const Slab& s = c_.slab();
    direct_lo_ = s.has_lo() && enable_peer_access(c_.device, peers_.device(s.lo_rank));
    direct_hi_ = s.has_hi() && enable_peer_access(c_.device, peers_.device(s.hi_rank));
    sent_of_rank_ = c_.comm->allgather_value(sent_);
  }
  bool overlaps() const override { return true; }
  void start(const std::vector<T*>& fields) override {
    ready_.wait(c_, halo_stream_);
    push_edges(c_, peers_, fields, halo_stream_);
    NSB_CUDA(cudaEventRecord(sent_, halo_stream_));
    c_.comm->barrier();
  }
  void finish() override {
    const cudaStream_t compute = static_cast<cudaStream_t>(c_.stream);
    const Slab& s = c_.slab();
    NSB_CUDA(cudaStreamWaitEvent(compute, sent_, 0));  // my edge planes are read before they change
    if (s.has_lo()) NSB_CUDA(cudaStreamWaitEvent(compute, sent_of_rank_[std::size_t(s.lo_rank)], 0));
    if (s.has_hi()) NSB_CUDA(cudaStreamWaitEvent(compute, sent_of_rank_[std::size_t(s.hi_rank)], 0));
  }
  void exchange(const std::vector<T*>& fields) override {  // too few planes to split: no overlap
    start(fields);
    finish();
  }
  nlohmann::json describe() const override { return peer_description(c_, direct_lo_, direct_hi_); }

 private:
  RankContext c_;
  PeerArrays<T> peers_;
  cudaStream_t halo_stream_ = nullptr;
  NeighboursReady ready_;
  cudaEvent_t sent_ = nullptr;
  std::vector<cudaEvent_t> sent_of_rank_;
  bool direct_lo_ = false, direct_hi_ = false;
};

template <class T>
std::unique_ptr<HaloExchange<T>> make(const RankContext& c) {
  return std::make_unique<P2pAsyncOverlap<T>>(c);
}

const HaloRegistrar reg{{.name = "p2p_async_overlap",
                         .backend = Backend::cuda,
                         .driver = "threads",
                         .tags = {{"halo", "p2p"}, {"sync", "async"}},
                         .tunings = {},
                         .make_float = &make<float>,
                         .make_double = &make<double>}};

}  // namespace
}  // namespace nsb
