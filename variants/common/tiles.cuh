// On-chip staging shared by the tiled variants (shared-memory z-loop tiles and z-marching planes).
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "accessors.hpp"
#include "common/traversals.cuh"

namespace nsb {

// Cooperative copy of a TX x TY x TZ box of a padded field, whose corner is at padded (i0, j0, k0),
// into shared memory (x fastest). Points outside the padded array are skipped: only points beyond
// the last ghost layer are cut, and no interior point reads them.
// The block's threads cover the box plane by plane in 2D strides, so no index is divided.
template <class T>
__device__ inline void load_box(T* s, const T* __restrict__ f, const Grid& g, int i0, int j0, int k0, int tx, int ty,
                                int tz) {
  for (int c = 0; c < tz; ++c) {
    const int k = k0 + c;
    if (k < 0 || k >= g.NZ()) continue;
    for (int b = threadIdx.y; b < ty; b += blockDim.y) {
      const int j = j0 + b;
      if (j >= g.NY()) break;
      const std::size_t row = g.idx(0, j, k);
      T* srow = s + (c * ty + b) * tx;
      for (int a = threadIdx.x; a < tx && i0 + a < g.NX(); a += blockDim.x) srow[a] = __ldg(f + row + i0 + a);
    }
  }
}

// A field seen from a point in a z-marching ring of three (bx+2) x (by+2) planes: below (k-1),
// middle (k) and above (k+1). Offsets in z pick the plane; x and y offsets index within it.
template <class T>
struct RingAt {
  const T* below;
  const T* mid;
  const T* above;
  int sy;
  NSB_HD T operator()(int di, int dj, int dk) const {
    const T* p = dk < 0 ? below : (dk > 0 ? above : mid);
    return p[di + dj * sy];
  }
};

// Dynamic shared memory above the default 48 KB must be asked for per kernel; a tuning that needs
// more than the device allows is refused with the numbers.
inline void allow_shared(const void* kernel, std::size_t bytes, const Tuning& t, const char* variant) {
  int dev = 0, optin = 0;
  NSB_CUDA(cudaGetDevice(&dev));
  NSB_CUDA(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
  if (bytes > std::size_t(optin))
    throw std::runtime_error(std::string(variant) + ": tuning " + t.name + " needs " + std::to_string(bytes) +
                             " bytes of shared memory per block; this GPU allows " + std::to_string(optin));
  if (bytes > 48 * 1024) NSB_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
}

}  // namespace nsb
