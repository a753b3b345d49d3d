// Device services for a build without a CUDA compiler: GPUs are reported absent and every GPU
// operation throws, so CPU runs work and GPU requests fail with a clear message.
#include <stdexcept>

#include "device.hpp"

namespace nsb::device {

[[noreturn]] static void no_cuda() {
  throw std::runtime_error("this nsbench was built without CUDA (no nvcc found at configure time)");
}

bool built_with_cuda() { return false; }
int count() { return 0; }
std::string unavailable_reason() { return "nsbench was built without CUDA"; }
void set_device(int) { no_cuda(); }
Properties properties(int) { no_cuda(); }
void* alloc(std::size_t, const char*) { no_cuda(); }
void free(void*) {}
std::size_t free_bytes() { return 0; }
void require_free(std::size_t, const std::string&, const std::string&) { no_cuda(); }
void copy_to_device(void*, const void*, std::size_t) { no_cuda(); }
void copy_to_host(void*, const void*, std::size_t) { no_cuda(); }
void copy_device(void*, const void*, std::size_t, void*) { no_cuda(); }
void fill_bytes(void*, int, std::size_t, void*) { no_cuda(); }
void fill_random(void*, std::size_t, int, unsigned long long, void*) { no_cuda(); }
void capture_begin(void*) { no_cuda(); }
void* capture_end(void*) { no_cuda(); }
void graph_launch(void*, void*) { no_cuda(); }
void graph_destroy(void*) {}
bool stream_capturing(void*) { return false; }
void* stream_create() { no_cuda(); }
void stream_destroy(void*) {}
void stream_sync(void*) { no_cuda(); }
void check_last_launch(const char*) {}
EventPool::EventPool(std::size_t) { no_cuda(); }
EventPool::~EventPool() = default;
void EventPool::record_start(std::size_t, void*) { no_cuda(); }
void EventPool::record_stop(std::size_t, void*) { no_cuda(); }
double EventPool::elapsed_seconds(std::size_t) { no_cuda(); }
CopyBandwidth measure_copy_bandwidth(int) { no_cuda(); }
double measure_sm_clock_mhz() { no_cuda(); }
KernelAttributes kernel_attributes(const void*) { no_cuda(); }
const char* transfer_name(Transfer) { return "?"; }
bool peer_access_possible(int, int) { return false; }
std::vector<double> time_transfer(Transfer, std::size_t, int, int) { no_cuda(); }

}  // namespace nsb::device

// PeerRanks (peer_ranks.hpp): never possible without CUDA; the ranks take the host's paths.
#include "peer_ranks.hpp"

namespace nsb {
struct PeerRanks::Impl {};
bool PeerRanks::possible(Communicator&, int) { return false; }
PeerRanks::PeerRanks(Communicator&, int, void*) { device::no_cuda(); }
PeerRanks::~PeerRanks() = default;
std::vector<const void*> PeerRanks::wait_for_all(const void*) { device::no_cuda(); }
int PeerRanks::device_of(int) const { device::no_cuda(); }
void PeerRanks::pull(void*, const void*, int, std::size_t) { device::no_cuda(); }
void PeerRanks::sum_in_rank_order(double*, const std::vector<const double*>&, int) { device::no_cuda(); }
}  // namespace nsb
