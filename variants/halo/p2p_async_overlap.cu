// halo/p2p_async_overlap: the solver computes the two edge planes first; start() sends them to the
// neighbours on a separate stream while the compute stream does the interior; finish() makes the
// compute stream wait (on the GPU, not the host) for the neighbours' copies into this rank's ghosts.
//
// Ordering without host waits: a neighbour's "sent" event is recorded once its pushes into my ghost
// planes are queued; the host barrier in start() only guarantees every rank has recorded this round's
// event before anyone waits on it. Writes into a neighbour's ghost plane cannot overtake its reads of
// that plane: those reads (the edge-plane compute of the previous exchange) precede its previous
// "sent" event, which my compute stream waited for before computing the edges I am now sending.
#include "peer_common.cuh"

namespace nsb {
namespace {

template <class T>
class P2pAsyncOverlap final : public HaloExchange<T> {
 public:
  explicit P2pAsyncOverlap(const RankContext& c) : c_(c) {
    NSB_CUDA(cudaStreamCreateWithFlags(&halo_stream_, cudaStreamNonBlocking));
    NSB_CUDA(cudaEventCreateWithFlags(&edges_ready_, cudaEventDisableTiming));
    NSB_CUDA(cudaEventCreateWithFlags(&sent_, cudaEventDisableTiming));
  }
  ~P2pAsyncOverlap() override {
    cudaStreamSynchronize(halo_stream_);
    cudaEventDestroy(edges_ready_);
    cudaEventDestroy(sent_);
    cudaStreamDestroy(halo_stream_);
  }
  void attach(const std::vector<T*>& buffers) override {
    peers_.attach(c_, buffers);
    const Slab& s = c_.slab();
    direct_lo_ = s.has_lo() && enable_peer_access(c_.device, peers_.device(s.lo_rank));
    direct_hi_ = s.has_hi() && enable_peer_access(c_.device, peers_.device(s.hi_rank));
    sent_of_rank_ = c_.comm->allgather_value(sent_);
  }
  bool overlaps() const override { return true; }
  void start(const std::vector<T*>& fields) override {
    const cudaStream_t compute = static_cast<cudaStream_t>(c_.stream);
    NSB_CUDA(cudaEventRecord(edges_ready_, compute));
    NSB_CUDA(cudaStreamWaitEvent(halo_stream_, edges_ready_, 0));
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
  cudaEvent_t edges_ready_ = nullptr, sent_ = nullptr;
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
