// Grid and field layout shared by every backend.
//
// A uniform Cartesian grid of nx x ny x nz interior cells with one ghost layer on every side, so the
// padded arrays hold NX = nx + 2 by NY by NZ values, x fastest: idx = i + NX*(j + NY*k) (thesis App. C.1).
// Staggering (thesis Sec. 2.3): p and the divergence live at cell centres; u at the +x face of its cell,
// v at the +y face, w at the +z face. So u(i,j,k) sits at x = i*dx, y = (j-1/2)*dy, z = (k-1/2)*dz and
// u(0,..) / u(nx,..) lie on the two x boundaries.
#pragma once

#include <cstddef>
#include <cstdint>

#if defined(__CUDACC__)
#define NSB_HD __host__ __device__
#else
#define NSB_HD
#endif

namespace nsb {

struct Grid {
  int nx = 0, ny = 0, nz = 0;  // interior cells
  double lx = 1, ly = 1, lz = 1;  // domain extent

  NSB_HD int NX() const { return nx + 2; }
  NSB_HD int NY() const { return ny + 2; }
  NSB_HD int NZ() const { return nz + 2; }
  NSB_HD std::ptrdiff_t sy() const { return NX(); }
  NSB_HD std::ptrdiff_t sz() const { return std::ptrdiff_t(NX()) * NY(); }
  NSB_HD std::size_t idx(int i, int j, int k) const {
    return std::size_t(i) + std::size_t(NX()) * (std::size_t(j) + std::size_t(NY()) * std::size_t(k));
  }
  NSB_HD std::size_t padded_points() const { return std::size_t(NX()) * NY() * NZ(); }
  NSB_HD std::size_t interior_points() const { return std::size_t(nx) * ny * nz; }
  double dx() const { return lx / nx; }
  double dy() const { return ly / ny; }
  double dz() const { return lz / nz; }
};

// The z-levels a compute stage works on: [k_begin, k_end) in padded indices (interior is 1..nz).
// Whole-grid runs use 1..nz+1; a multi-GPU overlap variant computes boundary planes and interior
// separately through this range, so every compute variant must honour it.
struct ZRange {
  int k_begin = 1, k_end = 1;
  static ZRange interior(const Grid& g) { return {1, g.nz + 1}; }
  int levels() const { return k_end - k_begin; }
};

}  // namespace nsb
