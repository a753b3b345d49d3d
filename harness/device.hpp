// The few GPU services the host-side harness needs, behind plain C++ signatures so that the solver,
// CLI and tests compile without CUDA headers. Implemented in device_cuda.cu, or in device_none.cpp
// for builds without a CUDA compiler (every call then throws "built without CUDA").
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace nsb::device {

bool built_with_cuda();
// Number of usable GPUs (0 when none or when the driver is missing; never throws).
int count();
// Why count() is 0, for messages ("no CUDA driver", "no GPU", ...).
std::string unavailable_reason();

// Makes `dev` the calling thread's current GPU (every later call of this thread uses it).
void set_device(int dev);

struct Properties {
  std::string name;
  int sm_count = 0, cc_major = 0, cc_minor = 0;
  std::size_t memory_bytes = 0, l2_bytes = 0;
  int clock_khz = 0, memory_clock_khz = 0, bus_width_bits = 0;
  int driver_version = 0, runtime_version = 0;
  std::string pci_bus_id;
};
Properties properties(int dev = 0);

// Throws std::runtime_error "<what> needs N MiB of GPU memory (<detail>); M MiB are free" when fewer
// than `bytes` are free, so a run that cannot fit says so before it allocates anything.
void require_free(std::size_t bytes, const std::string& what, const std::string& detail);

// Allocation throws std::runtime_error with the bytes asked for and the bytes free when it fails.
void* alloc(std::size_t bytes, const char* what);
void free(void* p);
std::size_t free_bytes();
// Returns when the data are on the device (safe for kernels on any stream).
void copy_to_device(void* dst, const void* src, std::size_t bytes);
void copy_to_host(void* dst, const void* src, std::size_t bytes);
void copy_device(void* dst, const void* src, std::size_t bytes, void* stream);
void fill_bytes(void* dst, int value, std::size_t bytes, void* stream);

// Fills n elements (float when elem_bytes == 4, else double) with values of either sign and magnitude
// in [0.5, 1.5): never zero, reproducible from the seed. Generated on the GPU, so large fields are quick.
void fill_random(void* dst, std::size_t n, int elem_bytes, unsigned long long seed, void* stream);

// CUDA graphs: record the work a stream is given between capture_begin and capture_end (nothing
// runs), then replay it with one launch.
void capture_begin(void* stream);
void* capture_end(void* stream);  // the instantiated graph
void graph_launch(void* graph_exec, void* stream);
void graph_destroy(void* graph_exec);
// Whether the stream is being captured now (by an enclosing capture_begin, e.g. the run's --launch graph):
// a second capture on it would fail, so work that captures graphs of its own runs plain launches there,
// which the enclosing graph takes in. False without CUDA.
bool stream_capturing(void* stream);

void* stream_create();
void stream_destroy(void* s);
void stream_sync(void* s);
void check_last_launch(const char* what);  // throws on a pending launch error

// Event pairs from a pool: start/stop are recorded on a stream, elapsed read after a sync.
class EventPool {
 public:
  explicit EventPool(std::size_t pairs);
  ~EventPool();
  EventPool(const EventPool&) = delete;
  EventPool& operator=(const EventPool&) = delete;
  std::size_t capacity() const { return start_.size(); }
  void record_start(std::size_t pair, void* stream);
  void record_stop(std::size_t pair, void* stream);
  double elapsed_seconds(std::size_t pair);  // waits for the stop event

 private:
  std::vector<void*> start_, stop_;
};

// Device-to-device copy bandwidth in bytes/s counting bytes read plus bytes written, the roofline
// ceiling: a large copy (>= 4x L2), warmed up, median over `samples` timed copies.
struct CopyBandwidth {
  double bytes_per_second = 0;
  double bytes_per_copy = 0;
  int samples = 0;
  double min_s = 0, median_s = 0, max_s = 0;
};
CopyBandwidth measure_copy_bandwidth(int samples = 30);

// Timed transfers for `nsbench bandwidth` (thesis Table A.1 and the links a halo exchange uses).
enum class Transfer {
  h2d_pageable, d2h_pageable, h2d_pinned, d2h_pinned,
  d2d,        // within GPU 0 (bytes counted once: the message size)
  p2p_uni,    // GPU 0 -> GPU 1, cudaMemcpyPeerAsync
  p2p_bidir,  // GPU 0 -> GPU 1 and GPU 1 -> GPU 0 at once (bytes counted in both directions)
};
const char* transfer_name(Transfer t);
// Whether GPU a can write GPU b's memory directly (NVLink or PCIe peer access).
bool peer_access_possible(int a, int b);
// Seconds of each of `samples` transfers of `bytes` (after `warmup` untimed ones), CUDA events.
std::vector<double> time_transfer(Transfer t, std::size_t bytes, int samples, int warmup);

// The SM clock the GPU runs at now, in MHz: clock64() cycles of a spinning kernel over its event time.
double measure_sm_clock_mhz();

// Registers, shared memory and local (spill) memory of a kernel from cudaFuncGetAttributes.
struct KernelAttributes {
  int registers = 0;
  std::size_t static_shared_bytes = 0, local_bytes = 0, const_bytes = 0;
  int max_threads_per_block = 0;
  int binary_version = 0;
};
KernelAttributes kernel_attributes(const void* kernel);

}  // namespace nsb::device
