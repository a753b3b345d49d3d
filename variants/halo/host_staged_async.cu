// halo/host_staged_async: Liu et al. 2019's exchange (Sec. 3.1, notes Sec. 2): the edge planes go
// device -> pinned host -> neighbour's device, as host_staged_sync's, but on a stream of their own, so
// that the compute stream works on the interior meanwhile ("one stream copies boundary data to the host
// asynchronously while another computes the inner data").
//
// start(): the halo stream waits for the edge planes (an event on the compute stream), then copies them
// to this rank's host slots; the host does not wait, so the solver goes on to queue the interior.
// finish(): the host waits for its copies to the host only, meets the neighbours (their slots are full),
// queues the copies from their slots into its ghost planes on the halo stream and makes the compute
// stream wait for them on the GPU; a last barrier lets every rank record that before anyone's next
// start(), whose copies into its slots first wait (on the GPU) for the neighbours' reads of them.
#include "peer_common.cuh"

namespace nsb {
namespace {

template <class T>
class HostStagedAsync final : public HaloExchange<T> {
 public:
  explicit HostStagedAsync(const RankContext& c) : c_(c) {
    NSB_CUDA(cudaStreamCreateWithFlags(&halo_stream_, cudaStreamNonBlocking));
    for (cudaEvent_t* e : {&edges_ready_, &staged_, &received_})
      NSB_CUDA(cudaEventCreateWithFlags(e, cudaEventDisableTiming));
  }
  ~HostStagedAsync() override {
    cudaStreamSynchronize(halo_stream_);
    for (cudaEvent_t e : {edges_ready_, staged_, received_}) cudaEventDestroy(e);
    cudaStreamDestroy(halo_stream_);
    if (host_) cudaFreeHost(host_);
  }
  void attach(const std::vector<T*>&) override {
    // Send slots: [field 0..2][side 0 = my plane 1 (down), 1 = my plane nz (up)], pinned.
    NSB_CUDA(cudaMallocHost(&host_, kFields * 2 * plane_elems(c_.grid) * sizeof(T)));
    host_of_rank_ = c_.comm->allgather_value(host_);
    received_of_rank_ = c_.comm->allgather_value(received_);
    NSB_CUDA(cudaEventRecord(received_, halo_stream_));  // nothing read yet: the first start() waits on this
    c_.comm->barrier();
  }
  bool overlaps() const override { return true; }
  void start(const std::vector<T*>& fields) override {
    if (fields.size() > kFields) throw std::logic_error("halo/host_staged_async: at most 3 fields an exchange");
    fields_ = fields;
    const Slab& s = c_.slab();
    NSB_CUDA(cudaEventRecord(edges_ready_, static_cast<cudaStream_t>(c_.stream)));
    NSB_CUDA(cudaStreamWaitEvent(halo_stream_, edges_ready_, 0));
    for (int r : {s.lo_rank, s.hi_rank})  // the neighbours have read my slots of the last exchange
      if (r >= 0) NSB_CUDA(cudaStreamWaitEvent(halo_stream_, received_of_rank_[std::size_t(r)], 0));
    for (std::size_t f = 0; f < fields.size(); ++f) {
      if (s.has_lo()) copy(slot(host_, f, 0), plane(fields[f], c_.grid, 1), cudaMemcpyDeviceToHost);
      if (s.has_hi()) copy(slot(host_, f, 1), plane(fields[f], c_.grid, s.nz), cudaMemcpyDeviceToHost);
    }
    NSB_CUDA(cudaEventRecord(staged_, halo_stream_));
  }
  void finish() override {
    const Slab& s = c_.slab();
    NSB_CUDA(cudaEventSynchronize(staged_));
    c_.comm->barrier();  // every neighbour's planes are in its slots
    for (std::size_t f = 0; f < fields_.size(); ++f) {
      if (s.has_lo())  // the lower neighbour's upward plane
        copy(plane(fields_[f], c_.grid, 0), slot(host_of_rank_[std::size_t(s.lo_rank)], f, 1), cudaMemcpyHostToDevice);
      if (s.has_hi()) copy(plane(fields_[f], c_.grid, s.nz + 1), slot(host_of_rank_[std::size_t(s.hi_rank)], f, 0),
                           cudaMemcpyHostToDevice);
    }
    NSB_CUDA(cudaEventRecord(received_, halo_stream_));
    NSB_CUDA(cudaStreamWaitEvent(static_cast<cudaStream_t>(c_.stream), received_, 0));
    c_.comm->barrier();  // every rank's `received_` is recorded before anyone's next start() waits on it
  }
  void exchange(const std::vector<T*>& fields) override {  // nothing to overlap
    start(fields);
    finish();
  }
  nlohmann::json describe() const override { return {{"host_memory", "pinned"}, {"streams", 2}}; }

 private:
  static constexpr std::size_t kFields = 3;
  T* slot(T* base, std::size_t f, int side) const { return base + (f * 2 + std::size_t(side)) * plane_elems(c_.grid); }
  void copy(T* dst, const T* src, cudaMemcpyKind kind) {
    NSB_CUDA(cudaMemcpyAsync(dst, src, plane_elems(c_.grid) * sizeof(T), kind, halo_stream_));
  }

  RankContext c_;
  cudaStream_t halo_stream_ = nullptr;
  cudaEvent_t edges_ready_ = nullptr, staged_ = nullptr, received_ = nullptr;
  T* host_ = nullptr;
  std::vector<T*> fields_;
  std::vector<T*> host_of_rank_;
  std::vector<cudaEvent_t> received_of_rank_;
};

template <class T>
std::unique_ptr<HaloExchange<T>> make(const RankContext& c) {
  return std::make_unique<HostStagedAsync<T>>(c);
}

const HaloRegistrar reg{{.name = "host_staged_async",
                         .backend = Backend::cuda,
                         .driver = "threads",
                         .tags = {{"halo", "host_staged"}, {"sync", "async"}},
                         .tunings = {{"pinned"}},
                         .make_float = &make<float>,
                         .make_double = &make<double>}};

}  // namespace
}  // namespace nsb
