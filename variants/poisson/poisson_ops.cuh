// The point operations of the Poisson family's stages (stage_call.hpp), each written once on top of
// the shared formulas; the variants differ in how they walk the points and how sums meet
// (poisson_common.cuh). An op is called as op(i, j, k, n) and returns its terms of the stage's sums; an
// op whose sums are dot products also has factors(i, j, k, n): the same point's writes, and the two
// factors of its dot (in double) for a library that forms the products itself (cublas_dots.cuh).
#pragma once

#include "poisson/poisson_common.cuh"

namespace nsb {

template <class T>
struct ShiftOp {  // faces: x -= shift
  T* x;
  T shift;
  __device__ Pair operator()(int, int, int, std::size_t n) const {
    x[n] -= shift;
    return {};
  }
};

template <class T>
struct ResidualOp {  // r = rhs_scale (rhs - rhs_shift) - L x; r^2
  PoissonArgs<T> c;
  __device__ Pair operator()(int, int, int, std::size_t n) const {
    const T r = c.rhs_scale * (__ldg(c.rhs + n) - c.rhs_shift) - poisson_apply(c.x, n, c.grid.sy(), c.grid.sz(), c.coef);
    c.r[n] = r;
    return {double(r) * double(r), 0};
  }
};

template <class T>
struct JacobiOp {  // p = (neighbours of x - rhs_scale (rhs - rhs_shift)) / diag
  PoissonArgs<T> c;
  __device__ Pair operator()(int, int, int, std::size_t n) const {
    c.p[n] = (poisson_neighbours(c.x, n, c.grid.sy(), c.grid.sz(), c.coef) - c.rhs_scale * (__ldg(c.rhs + n) - c.rhs_shift)) /
             c.coef.diag;
    return {};
  }
};

template <class T>
struct DotOp {  // a b (b null: a, i.e. a times 1)
  const T* a;
  const T* b;
  __device__ Pair factors(int, int, int, std::size_t n) const {
    return {double(__ldg(a + n)), b ? double(__ldg(b + n)) : 1.0};
  }
  __device__ Pair operator()(int i, int j, int k, std::size_t n) const {
    const Pair f = factors(i, j, k, n);
    return {f.a * f.b, 0};
  }
};
template <class T>
struct DotTerm {  // the same as one term, for CUB
  DotOp<T> op;
  __device__ double operator()(int i, int j, int k, std::size_t n) const { return op(i, j, k, n).a; }
};

template <class T>
struct ApplyOp {  // q = L p; p q
  PoissonArgs<T> c;
  __device__ Pair factors(int, int, int, std::size_t n) const {  // writes q; the dot's factors p, q
    const T q = poisson_apply(c.p, n, c.grid.sy(), c.grid.sz(), c.coef);
    c.q[n] = q;
    return {double(c.p[n]), double(q)};
  }
  __device__ Pair operator()(int i, int j, int k, std::size_t n) const {
    const Pair f = factors(i, j, k, n);
    return {f.a * f.b, 0};
  }
};

// alpha = rz / pq, read from the device scalars (0 once a device-side check stopped the iteration).
template <class T>
__device__ inline T cg_alpha(const PoissonArgs<T>& c) {
  return T(cg_alpha_of(c.rz, c.pq, c.stop));
}

template <class T>
struct UpdateOp {  // x += alpha p; r -= alpha q; r z, r r (z = m r)
  PoissonArgs<T> c;
  __device__ Pair factors(int i, int j, int k, std::size_t n) const {  // writes x and r; the dots' factors r, z
    const T alpha = cg_alpha(c);
    c.x[n] += alpha * c.p[n];
    const T r = c.r[n] - alpha * c.q[n];
    c.r[n] = r;
    const T z = cg_multiplier(c, i, j, k) * r;
    return {double(r), double(z)};
  }
  __device__ Pair operator()(int i, int j, int k, std::size_t n) const {
    const Pair f = factors(i, j, k, n);
    return {f.a * f.b, f.a * f.a};
  }
};
template <class T>
struct AxpyXOp {  // separate updates: x += alpha p
  PoissonArgs<T> c;
  __device__ Pair operator()(int, int, int, std::size_t n) const {
    c.x[n] += cg_alpha(c) * c.p[n];
    return {};
  }
};
template <class T>
struct AxpyROp {  // separate updates: r -= alpha q
  PoissonArgs<T> c;
  __device__ Pair operator()(int, int, int, std::size_t n) const {
    c.r[n] -= cg_alpha(c) * c.q[n];
    return {};
  }
};
template <class T>
struct ResidualTerm {  // r z (square: r r) of the updated residual
  PoissonArgs<T> c;
  bool square;
  __device__ double operator()(int i, int j, int k, std::size_t n) const {
    const T r = c.r[n];
    return square ? double(r) * double(r) : double(r) * double(cg_multiplier(c, i, j, k) * r);
  }
};

template <class T>
struct DirectionOp {  // p = m r + beta p
  PoissonArgs<T> c;
  __device__ Pair operator()(int i, int j, int k, std::size_t n) const {
    const T beta = c.rz_prev ? T(*c.rz / *c.rz_prev) : T(0);
    c.p[n] = cg_multiplier(c, i, j, k) * c.r[n] + beta * c.p[n];
    return {};
  }
};

}  // namespace nsb
