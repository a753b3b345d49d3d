// The interior z-levels of a padded field, k = 1..nz, read as one flat run of aligned vectors of
// `width` values (ghost rows and columns included, then masked out). A reduction over the interior
// then issues one 16-byte load per vector instead of one 4-byte load per float: 2^27 floats read
// one value per load leave the memory system short of bytes in flight (87% of the copy bandwidth on
// an H200, against 95% for doubles). The ghost values read and dropped are 2/nx + 2/ny of the
// traffic (0.8% at 512^3).
//
// Element numbers must fit 32 bits (padded_points() < 2^32) for the multiply-high division; larger
// fields take the row-by-row path of the reduce variants.
#pragma once

#include <cstddef>
#include <cstdint>

#include "grid.hpp"

namespace nsb {

// n / d for any 32-bit n by one multiply-high and a shift, d fixed (Granlund & Montgomery 1994).
struct FastDivide {
  unsigned d = 1, magic = 0, shift = 0;
  FastDivide() = default;
  NSB_HD explicit FastDivide(unsigned divisor) : d(divisor) {
    while ((1ull << shift) < d) ++shift;
    magic = unsigned(((1ull << 32) * ((1ull << shift) - d)) / d + 1);
  }
  NSB_HD unsigned operator()(unsigned n) const {
#if defined(__CUDA_ARCH__)
    const unsigned long long hi = __umulhi(n, magic);
#else
    const unsigned long long hi = (static_cast<unsigned long long>(n) * magic) >> 32;
#endif
    return unsigned((hi + n) >> shift);
  }
};

template <int W>  // values per vector
struct FlatInterior {
  std::size_t first = 0, last = 0;      // vectors [first, last) cover the interior z-levels
  std::size_t begin = 0, end = 0;       // element range of those levels: [idx(0,0,1), idx(0,0,nz+1))
  int nx = 0, ny = 0;
  FastDivide by_NX, by_NY;

  static NSB_HD bool fits(const Grid& g) { return g.padded_points() < (1ull << 32); }
  NSB_HD explicit FlatInterior(const Grid& g)
      : begin(g.idx(0, 0, 1)), end(g.idx(0, 0, g.nz + 1)), nx(g.nx), ny(g.ny),
        by_NX(unsigned(g.NX())), by_NY(unsigned(g.NY())) {
    first = begin / W;
    last = (end + W - 1) / W;
  }

  // Calls f(l) for each lane l of vector v whose element is an interior point.
  template <class F>
  NSB_HD void for_interior(std::size_t v, F&& f) const {
    const unsigned e0 = unsigned(v * W);
    const unsigned row = by_NX(e0);
    int i = int(e0 - row * by_NX.d), j = int(row - by_NY(row) * by_NY.d);
    for (int l = 0; l < W; ++l) {
      const std::size_t e = std::size_t(e0) + std::size_t(l);
      if (e >= begin && e < end && i >= 1 && i <= nx && j >= 1 && j <= ny) f(l);
      if (++i == int(by_NX.d)) {
        i = 0;
        if (++j == int(by_NY.d)) j = 0;
      }
    }
  }
};

}  // namespace nsb
