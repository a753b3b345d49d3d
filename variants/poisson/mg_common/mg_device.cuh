// What multigrid's GPU variants share (stage kinds poisson/mg_*, multigrid_call.hpp): the point
// operations of the z-walking 2D traversal (variants/common/traversals.cuh), each a call's arrays and
// the formulas of multigrid_formulas.hpp, and the tunings of those variants.
#pragma once

#include <vector>

#include "grid.hpp"  // before traversals.cuh, which uses Grid without including it
#include "common/traversals.cuh"
#include "poisson/multigrid_call.hpp"
#include "poisson/multigrid_formulas.hpp"

namespace nsb {

// Block shapes of the z-walking multigrid kernels: wide rows (coalesced 7-point reads) and a few
// levels per thread; the first is the default.
inline std::vector<Tuning> mg_zloop_tunings() {
  std::vector<Tuning> t;
  for (const char* name : {"bx32_by4_sz8", "bx64_by4_sz8", "bx128_by2_sz16", "bx32_by8_sz4"}) t.push_back(parse_tuning(name));
  return t;
}

template <class T>
struct MgJacobiOp {
  const T* p;
  const T* f;
  T* out;
  MgCoef<T> coef;
  std::ptrdiff_t sy, sz;
  T omega;
  __device__ void operator()(int, int, int, std::size_t n) const {
    out[n] = mg_jacobi_point(p, n, sy, sz, f[n], coef, omega);
  }
};
template <class T>
MgJacobiOp<T> mg_jacobi_op(const MgJacobiCall<T>& c) {
  return {c.p, c.f, c.out, make_mg_coef<T>(c.grid), c.grid.sy(), c.grid.sz(), c.omega};
}

// One colour of red-black Gauss-Seidel, a thread per point of both colours (half of them idle).
template <class T>
struct MgRbgsOp {
  T* p;
  const T* f;
  MgCoef<T> coef;
  std::ptrdiff_t sy, sz;
  int colour;
  T omega;
  __device__ void operator()(int i, int j, int k, std::size_t n) const {
    if (mg_has_colour(i, j, k, colour)) p[n] = mg_rbgs_point(p, n, sy, sz, f[n], coef, omega);
  }
};
template <class T>
MgRbgsOp<T> mg_rbgs_op(const MgRbgsCall<T>& c) {
  return {c.p, c.f, make_mg_coef<T>(c.grid), c.grid.sy(), c.grid.sz(), c.colour, c.omega};
}

template <class T>
struct MgResidualOp {
  const T* p;
  const T* f;
  T* r;
  MgCoef<T> coef;
  std::ptrdiff_t sy, sz;
  __device__ void operator()(int, int, int, std::size_t n) const { r[n] = mg_residual_point(p, n, sy, sz, f[n], coef); }
};
template <class T>
MgResidualOp<T> mg_residual_op(const MgResidualCall<T>& c) {
  return {c.p, c.f, c.r, make_mg_coef<T>(c.grid), c.grid.sy(), c.grid.sz()};
}

template <class T>
struct MgRestrictOp {  // over the coarse grid
  const T* fine_r;
  T* coarse_f;
  Grid fine;
  __device__ void operator()(int I, int J, int K, std::size_t n) const {
    coarse_f[n] = mg_restrict_point(fine_r, fine, I, J, K);
  }
};

template <class T>
struct MgResidualRestrictOp {  // over the coarse grid
  const T* p;
  const T* f;
  T* coarse_f;
  Grid fine;
  MgCoef<T> coef;
  __device__ void operator()(int I, int J, int K, std::size_t n) const {
    coarse_f[n] = mg_residual_restrict_point(p, f, fine, coef, I, J, K);
  }
};

template <class T>
struct MgProlongOp {  // over the fine grid
  const T* coarse_e;
  T* fine_e;
  Grid coarse;
  __device__ void operator()(int i, int j, int k, std::size_t n) const {
    fine_e[n] += mg_prolong_point(coarse_e, coarse, i, j, k);
  }
};

template <class T>
struct MgShiftOp {
  const T* in;
  T* out;
  T scale;
  const double* sums;  // null: no shift
  double points;
  __device__ void operator()(int, int, int, std::size_t n) const {
    const T by = sums ? T(double(scale) * sums[0] / points) : T(0);
    out[n] = scale * in[n] - by;
  }
};

}  // namespace nsb
