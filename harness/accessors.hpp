// Accessors: where a per-point formula gets its neighbour values from.
#pragma once

#include <cstddef>

#include "grid.hpp"

namespace nsb {

// A field in global (or host) memory, seen from one point: a(di, dj, dk) = f[c + di + dj*sy + dk*sz].
template <class T>
struct PointAt {
  const T* c;
  std::ptrdiff_t sy, sz;
  NSB_HD T operator()(int di, int dj, int dk) const { return c[di + dj * sy + dk * sz]; }
};

// A read-only field in global (or host) memory. On the GPU the loads go through the non-coherent
// read-only path (__ldg), which also tells the compiler no store of the kernel can change them, so it
// may issue them early and keep many in flight. Only for fields the kernel does not write.
template <class T>
struct ReadOnlyAt {
  const T* c;
  std::ptrdiff_t sy, sz;
  NSB_HD T operator()(int di, int dj, int dk) const {
#if defined(__CUDA_ARCH__)
    return __ldg(c + (di + dj * sy + dk * sz));
#else
    return c[di + dj * sy + dk * sz];
#endif
  }
};

template <class T>
NSB_HD inline ReadOnlyAt<T> point_at(const T* f, const Grid& g, std::size_t idx) {
  return ReadOnlyAt<T>{f + idx, g.sy(), g.sz()};
}
template <class T>
NSB_HD inline T read_only(const T* p) {
#if defined(__CUDA_ARCH__)
  return __ldg(p);
#else
  return *p;
#endif
}

}  // namespace nsb
