// Peer access between two GPUs, on its own: the multiblock variants and the GPU ranks' peer copies
// need only this, not the halo variants' classes (peer_common.cuh), whose halo.hpp brings nlohmann/json
// into every file that includes it (seconds of host parsing a file, three times over under nvcc).
#pragma once

#include <cuda_runtime.h>

#include "cuda/check.cuh"

namespace nsb {

// Lets `dev` read and write `peer`'s memory directly when the hardware allows (NVLink, PCIe P2P).
// Returns whether direct access is on; without it cudaMemcpyPeer still works, staged by the driver.
inline bool enable_peer_access(int dev, int peer) {
  if (dev == peer) return true;
  int can = 0;
  NSB_CUDA(cudaDeviceCanAccessPeer(&can, dev, peer));
  if (!can) return false;
  const cudaError_t e = cudaDeviceEnablePeerAccess(peer, 0);
  if (e == cudaErrorPeerAccessAlreadyEnabled) cudaGetLastError();
  else NSB_CUDA(e);
  return true;
}

}  // namespace nsb
