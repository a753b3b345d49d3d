#include <algorithm>
#include <sstream>
#include <vector>

#include "../device.hpp"
#include "../device_reason.hpp"
#include "check.cuh"

namespace nsb::device {

bool built_with_cuda() { return true; }

int count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky "no driver" error
    return 0;
  }
  return n;
}

void set_device(int dev) { NSB_CUDA(cudaSetDevice(dev)); }

std::string unavailable_reason() {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    cudaGetLastError();
    return no_gpu_reason(cudaGetErrorString(e), nvidia_driver_loaded());
  }
  return n == 0 ? no_gpu_reason("", nvidia_driver_loaded()) : "";
}

Properties properties(int dev) {
  cudaDeviceProp p{};
  NSB_CUDA(cudaGetDeviceProperties(&p, dev));
  Properties r;
  r.name = p.name;
  r.sm_count = p.multiProcessorCount;
  r.cc_major = p.major;
  r.cc_minor = p.minor;
  r.memory_bytes = p.totalGlobalMem;
  r.l2_bytes = p.l2CacheSize;
  int v = 0;
  cudaDeviceGetAttribute(&v, cudaDevAttrClockRate, dev);
  r.clock_khz = v;
  cudaDeviceGetAttribute(&v, cudaDevAttrMemoryClockRate, dev);
  r.memory_clock_khz = v;
  cudaDeviceGetAttribute(&v, cudaDevAttrGlobalMemoryBusWidth, dev);
  r.bus_width_bits = v;
  cudaDriverGetVersion(&r.driver_version);
  cudaRuntimeGetVersion(&r.runtime_version);
  char bus[32] = {0};
  if (cudaDeviceGetPCIBusId(bus, sizeof bus, dev) == cudaSuccess) r.pci_bus_id = bus;
  return r;
}

std::size_t free_bytes() {
  std::size_t f = 0, t = 0;
  NSB_CUDA(cudaMemGetInfo(&f, &t));
  return f;
}

void require_free(std::size_t bytes, const std::string& what, const std::string& detail) {
  const std::size_t f = free_bytes();
  if (bytes > f)
    throw std::runtime_error(what + " needs " + std::to_string(bytes >> 20) + " MiB of GPU memory (" + detail + "); " +
                             std::to_string(f >> 20) + " MiB are free");
}

void* alloc(std::size_t bytes, const char* what) {
  void* p = nullptr;
  const cudaError_t e = cudaMalloc(&p, bytes);
  if (e != cudaSuccess) {
    cudaGetLastError();
    std::size_t f = 0, t = 0;
    cudaMemGetInfo(&f, &t);
    std::ostringstream m;
    m << "out of GPU memory allocating " << what << ": asked for " << bytes / 1048576.0 << " MiB, "
      << f / 1048576.0 << " MiB free of " << t / 1048576.0 << " MiB (" << cudaGetErrorString(e) << ")";
    throw std::runtime_error(m.str());
  }
  return p;
}

void free(void* p) {
  if (p) cudaFree(p);
}

void copy_to_device(void* dst, const void* src, std::size_t bytes) {
  NSB_CUDA(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
  // From pageable memory cudaMemcpy may return before its DMA has landed, and the solver's kernels run
  // on non-blocking streams that do not wait for the legacy stream: wait here, or a kernel can read
  // the old contents (seen as a rare verify failure when tests share the GPU).
  NSB_CUDA(cudaStreamSynchronize(cudaStreamLegacy));
}
void copy_to_host(void* dst, const void* src, std::size_t bytes) {
  NSB_CUDA(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost));
}
void copy_device(void* dst, const void* src, std::size_t bytes, void* stream) {
  NSB_CUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, static_cast<cudaStream_t>(stream)));
}
void fill_bytes(void* dst, int value, std::size_t bytes, void* stream) {
  NSB_CUDA(cudaMemsetAsync(dst, value, bytes, static_cast<cudaStream_t>(stream)));
}

namespace {
template <class T>
__global__ void fill_random_kernel(T* p, std::size_t n, unsigned long long seed) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    unsigned long long x = (i + 1) * 0x9E3779B97F4A7C15ull ^ seed;  // splitmix64
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    x ^= x >> 31;
    const double mag = 0.5 + double(x >> 11) * (1.0 / 9007199254740992.0);
    p[i] = T((x & 1) ? -mag : mag);
  }
}
}  // namespace

void fill_random(void* dst, std::size_t n, int elem_bytes, unsigned long long seed, void* stream) {
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  if (elem_bytes == 4) fill_random_kernel<<<1024, 256, 0, s>>>(static_cast<float*>(dst), n, seed);
  else fill_random_kernel<<<1024, 256, 0, s>>>(static_cast<double*>(dst), n, seed);
  NSB_LAUNCHED("fill_random_kernel");
}

void capture_begin(void* stream) {
  NSB_CUDA(cudaStreamBeginCapture(static_cast<cudaStream_t>(stream), cudaStreamCaptureModeThreadLocal));
}
void* capture_end(void* stream) {
  cudaGraph_t graph;
  NSB_CUDA(cudaStreamEndCapture(static_cast<cudaStream_t>(stream), &graph));
  cudaGraphExec_t exec;
  const cudaError_t e = cudaGraphInstantiate(&exec, graph, 0);
  cudaGraphDestroy(graph);
  NSB_CUDA(e);
  return exec;
}
void graph_launch(void* exec, void* stream) {
  NSB_CUDA(cudaGraphLaunch(static_cast<cudaGraphExec_t>(exec), static_cast<cudaStream_t>(stream)));
}
void graph_destroy(void* exec) {
  if (exec) cudaGraphExecDestroy(static_cast<cudaGraphExec_t>(exec));
}
bool stream_capturing(void* stream) {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  NSB_CUDA(cudaStreamIsCapturing(static_cast<cudaStream_t>(stream), &status));
  return status != cudaStreamCaptureStatusNone;
}

void* stream_create() {
  cudaStream_t s;
  NSB_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  return s;
}
void stream_destroy(void* s) {
  if (s) cudaStreamDestroy(static_cast<cudaStream_t>(s));
}
void stream_sync(void* s) { NSB_CUDA(cudaStreamSynchronize(static_cast<cudaStream_t>(s))); }
void check_last_launch(const char* what) { cuda_check(cudaGetLastError(), what, __FILE__, __LINE__); }

EventPool::EventPool(std::size_t pairs) : start_(pairs), stop_(pairs) {
  for (std::size_t i = 0; i < pairs; ++i) {
    NSB_CUDA(cudaEventCreate(reinterpret_cast<cudaEvent_t*>(&start_[i])));
    NSB_CUDA(cudaEventCreate(reinterpret_cast<cudaEvent_t*>(&stop_[i])));
  }
}
EventPool::~EventPool() {
  for (void* e : start_) cudaEventDestroy(static_cast<cudaEvent_t>(e));
  for (void* e : stop_) cudaEventDestroy(static_cast<cudaEvent_t>(e));
}
void EventPool::record_start(std::size_t i, void* s) {
  NSB_CUDA(cudaEventRecord(static_cast<cudaEvent_t>(start_[i]), static_cast<cudaStream_t>(s)));
}
void EventPool::record_stop(std::size_t i, void* s) {
  NSB_CUDA(cudaEventRecord(static_cast<cudaEvent_t>(stop_[i]), static_cast<cudaStream_t>(s)));
}
double EventPool::elapsed_seconds(std::size_t i) {
  NSB_CUDA(cudaEventSynchronize(static_cast<cudaEvent_t>(stop_[i])));
  float ms = 0;
  NSB_CUDA(cudaEventElapsedTime(&ms, static_cast<cudaEvent_t>(start_[i]), static_cast<cudaEvent_t>(stop_[i])));
  return ms * 1e-3;
}

CopyBandwidth measure_copy_bandwidth(int samples) {
  const Properties p = properties(0);
  // Large against L2 so the copy streams from memory: at least 8x L2 and 1 GiB, at most 1/8 of memory.
  std::size_t bytes = std::max<std::size_t>(std::size_t(1) << 30, 8 * p.l2_bytes);
  bytes = std::min(bytes, p.memory_bytes / 8);
  void* a = alloc(bytes, "copy-bandwidth source");
  void* b = nullptr;
  try {
    b = alloc(bytes, "copy-bandwidth destination");
  } catch (...) {
    free(a);
    throw;
  }
  cudaStream_t s = static_cast<cudaStream_t>(stream_create());
  NSB_CUDA(cudaMemsetAsync(a, 1, bytes, s));
  EventPool ev(samples);
  for (int w = 0; w < 3; ++w) NSB_CUDA(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, s));
  for (int i = 0; i < samples; ++i) {
    ev.record_start(i, s);
    NSB_CUDA(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, s));
    ev.record_stop(i, s);
  }
  std::vector<double> t(samples);
  for (int i = 0; i < samples; ++i) t[i] = ev.elapsed_seconds(i);
  std::sort(t.begin(), t.end());
  CopyBandwidth r;
  r.samples = samples;
  r.bytes_per_copy = 2.0 * double(bytes);
  r.min_s = t.front();
  r.max_s = t.back();
  r.median_s = samples % 2 ? t[samples / 2] : 0.5 * (t[samples / 2 - 1] + t[samples / 2]);
  r.bytes_per_second = r.bytes_per_copy / r.median_s;
  stream_destroy(s);
  free(a);
  free(b);
  return r;
}

namespace {
__global__ void spin_kernel(long long cycles, long long* spun) {
  const long long t0 = clock64();
  long long t = t0;
  while (t - t0 < cycles) t = clock64();
  if (threadIdx.x == 0) *spun = t - t0;
}
}  // namespace

double measure_sm_clock_mhz() {
  long long* spun = static_cast<long long*>(alloc(sizeof(long long), "clock probe"));
  cudaStream_t s = static_cast<cudaStream_t>(stream_create());
  EventPool ev(1);
  spin_kernel<<<1, 32, 0, s>>>(1000000, spun);  // warm-up: clocks ramp up
  ev.record_start(0, s);
  spin_kernel<<<1, 32, 0, s>>>(20000000, spun);  // ~10 ms at 2 GHz
  ev.record_stop(0, s);
  const double seconds = ev.elapsed_seconds(0);
  long long cycles = 0;
  copy_to_host(&cycles, spun, sizeof cycles);
  stream_destroy(s);
  free(spun);
  return double(cycles) / seconds * 1e-6;
}

KernelAttributes kernel_attributes(const void* kernel) {
  cudaFuncAttributes a{};
  NSB_CUDA(cudaFuncGetAttributes(&a, kernel));
  KernelAttributes r;
  r.registers = a.numRegs;
  r.static_shared_bytes = a.sharedSizeBytes;
  r.local_bytes = a.localSizeBytes;
  r.const_bytes = a.constSizeBytes;
  r.max_threads_per_block = a.maxThreadsPerBlock;
  r.binary_version = a.binaryVersion;
  return r;
}

}  // namespace nsb::device
