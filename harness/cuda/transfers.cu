// Host <-> device, device <-> device and peer-to-peer transfers timed with CUDA events.
#include <memory>
#include <vector>

#include "../device.hpp"
#include "check.cuh"

namespace nsb::device {

const char* transfer_name(Transfer t) {
  switch (t) {
    case Transfer::h2d_pageable: return "h2d_pageable";
    case Transfer::d2h_pageable: return "d2h_pageable";
    case Transfer::h2d_pinned: return "h2d_pinned";
    case Transfer::d2h_pinned: return "d2h_pinned";
    case Transfer::d2d: return "d2d";
    case Transfer::p2p_uni: return "p2p_uni";
    case Transfer::p2p_bidir: return "p2p_bidir";
  }
  return "?";
}

bool peer_access_possible(int a, int b) {
  int can = 0;
  NSB_CUDA(cudaDeviceCanAccessPeer(&can, a, b));
  return can != 0;
}

namespace {

struct DeviceBuffer {
  int dev;
  void* p = nullptr;
  DeviceBuffer(int d, std::size_t bytes) : dev(d) {
    NSB_CUDA(cudaSetDevice(d));
    NSB_CUDA(cudaMalloc(&p, bytes));
    NSB_CUDA(cudaMemset(p, 1, bytes));
  }
  ~DeviceBuffer() {
    cudaSetDevice(dev);
    cudaFree(p);
  }
};

void enable_peer(int a, int b) {
  NSB_CUDA(cudaSetDevice(a));
  const cudaError_t e = cudaDeviceEnablePeerAccess(b, 0);
  if (e == cudaErrorPeerAccessAlreadyEnabled) cudaGetLastError();
  else NSB_CUDA(e);
}

}  // namespace

std::vector<double> time_transfer(Transfer t, std::size_t bytes, int samples, int warmup) {
  const bool peer = t == Transfer::p2p_uni || t == Transfer::p2p_bidir;
  if (peer && count() < 2) throw std::runtime_error(std::string(transfer_name(t)) + " needs two GPUs");
  if (peer && peer_access_possible(0, 1)) enable_peer(0, 1), enable_peer(1, 0);
  DeviceBuffer d0(0, bytes), d0b(0, bytes);
  std::unique_ptr<DeviceBuffer> d1, d1b;
  if (peer) d1 = std::make_unique<DeviceBuffer>(1, bytes), d1b = std::make_unique<DeviceBuffer>(1, bytes);
  const bool pinned = t == Transfer::h2d_pinned || t == Transfer::d2h_pinned;
  void* host = nullptr;
  std::vector<char> pageable;
  if (pinned) NSB_CUDA(cudaMallocHost(&host, bytes));
  else pageable.assign(bytes, 1), host = pageable.data();

  cudaStream_t s0, s1 = nullptr;
  cudaEvent_t start, stop, joined;
  NSB_CUDA(cudaSetDevice(0));
  NSB_CUDA(cudaStreamCreateWithFlags(&s0, cudaStreamNonBlocking));
  NSB_CUDA(cudaEventCreate(&start));
  NSB_CUDA(cudaEventCreate(&stop));
  if (t == Transfer::p2p_bidir) {
    NSB_CUDA(cudaSetDevice(1));
    NSB_CUDA(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    NSB_CUDA(cudaEventCreateWithFlags(&joined, cudaEventDisableTiming));
    NSB_CUDA(cudaSetDevice(0));
  }
  auto once = [&] {
    switch (t) {
      case Transfer::h2d_pageable:
      case Transfer::h2d_pinned: NSB_CUDA(cudaMemcpyAsync(d0.p, host, bytes, cudaMemcpyHostToDevice, s0)); break;
      case Transfer::d2h_pageable:
      case Transfer::d2h_pinned: NSB_CUDA(cudaMemcpyAsync(host, d0.p, bytes, cudaMemcpyDeviceToHost, s0)); break;
      case Transfer::d2d: NSB_CUDA(cudaMemcpyAsync(d0b.p, d0.p, bytes, cudaMemcpyDeviceToDevice, s0)); break;
      case Transfer::p2p_uni: NSB_CUDA(cudaMemcpyPeerAsync(d1->p, 1, d0.p, 0, bytes, s0)); break;
      case Transfer::p2p_bidir:
        // Both directions at once: GPU 1's stream starts at the start event and GPU 0 waits for it to end.
        NSB_CUDA(cudaStreamWaitEvent(s1, start, 0));
        NSB_CUDA(cudaMemcpyPeerAsync(d1->p, 1, d0.p, 0, bytes, s0));
        NSB_CUDA(cudaMemcpyPeerAsync(d0b.p, 0, d1b->p, 1, bytes, s1));
        NSB_CUDA(cudaEventRecord(joined, s1));
        NSB_CUDA(cudaStreamWaitEvent(s0, joined, 0));
        break;
    }
  };
  std::vector<double> out;
  for (int i = 0; i < warmup + samples; ++i) {
    NSB_CUDA(cudaEventRecord(start, s0));
    once();
    NSB_CUDA(cudaEventRecord(stop, s0));
    NSB_CUDA(cudaEventSynchronize(stop));
    float ms = 0;
    NSB_CUDA(cudaEventElapsedTime(&ms, start, stop));
    if (i >= warmup) out.push_back(ms * 1e-3);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaStreamDestroy(s0);
  if (s1) cudaEventDestroy(joined), cudaStreamDestroy(s1);
  if (pinned) cudaFreeHost(host);
  return out;
}

}  // namespace nsb::device
