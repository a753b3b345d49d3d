// wave/step/register_rows: each thread owns V adjacent columns (one aligned vector: float4, float2 or
// double2 where the row length allows it, else one value) and marches up sz rows, keeping rows k-1, k
// and k+1 of u in registers. Every value of u then comes from DRAM once, when its row is the one above,
// with u_prev read and u_next written once: the 3 words a point of the work model. Blocks are wide rows
// of threads (each row of a block a few long bursts), and the row loop is unrolled so that several
// rows' loads are in flight per thread (they take the read-only path, which may run ahead of stores).
//
// Alignment: the row of nodes k starts at (1 + 3k)(nx + 2) (formulas.hpp). Vectors begin at padded
// columns that are multiples of V, so they stay aligned in every row when V divides nx + 2 (the arrays
// themselves come from cudaMalloc, 256-byte aligned): they cover the padded columns 0..nx+1, and a
// vector that holds a boundary column stores its interior values one by one.
#include <cstdint>
#include <cstring>

#include "wave/step/plane.cuh"

namespace nsb {
namespace {

template <class T, int V> struct VectorOf;  // the CUDA type of V values of T
template <> struct VectorOf<float, 1> { using type = float; };
template <> struct VectorOf<float, 2> { using type = float2; };
template <> struct VectorOf<float, 4> { using type = float4; };
template <> struct VectorOf<double, 1> { using type = double; };
template <> struct VectorOf<double, 2> { using type = double2; };

// V values of one row, in registers.
template <class T, int V>
struct Lanes {
  T v[V];
};
template <class T, int V>
__device__ inline Lanes<T, V> load_lanes(const T* p) {
  const auto x = __ldg(reinterpret_cast<const typename VectorOf<T, V>::type*>(p));
  Lanes<T, V> out;
  memcpy(&out, &x, sizeof x);
  return out;
}
template <class T, int V>
__device__ inline void store_lanes(T* p, const Lanes<T, V>& lanes) {
  typename VectorOf<T, V>::type x;
  memcpy(&x, &lanes, sizeof x);
  *reinterpret_cast<typename VectorOf<T, V>::type*>(p) = x;
}

// Rows k0..k1-1 of the V columns from padded column i0. Whole: no boundary column among them, so the
// row loop has no branch and its loads are free to run ahead of the previous rows' stores.
template <bool Whole, class T, int V>
__device__ inline void march_rows(const WaveArgs<T>& a, int i0, int k0, int k1) {
  const std::size_t row = std::size_t(a.g.sz());  // to the next row of nodes
  // Columns i0 - 1 and i0 + V, or the lane's own where they lie outside the array: only a boundary lane
  // (never stored) would read them.
  const int west = i0 > 0 ? -1 : 0, east = i0 + V < a.g.NX() ? V : V - 1;
  std::size_t n = wave_node(a.g, i0, k0);
  Lanes<T, V> below = load_lanes<T, V>(a.u + n - row), mid = load_lanes<T, V>(a.u + n);
#pragma unroll 4
  for (int k = k0; k < k1; ++k, n += row) {
    const Lanes<T, V> above = load_lanes<T, V>(a.u + n + row);
    const Lanes<T, V> prev = load_lanes<T, V>(a.u_prev + n);
    const T u_west = read_only(a.u + n + west), u_east = read_only(a.u + n + east);
    Lanes<T, V> next;
#pragma unroll
    for (int e = 0; e < V; ++e) {
      // u around lane e, all from registers but the values just west and east of the vector (the
      // neighbour threads' lanes: L1 hits, their warp read this row as its row above a step earlier).
      const auto u = [&](int di, int, int dk) {
        if (dk != 0) return dk < 0 ? below.v[e] : above.v[e];
        return e + di < 0 ? u_west : (e + di >= V ? u_east : mid.v[e + di]);
      };
      next.v[e] = wave_point(u, prev.v[e], a.rho2);
    }
    if constexpr (Whole) {
      store_lanes(a.u_next + n, next);
    } else {
#pragma unroll
      for (int e = 0; e < V; ++e)
        if (i0 + e >= 1 && i0 + e <= a.g.nx) a.u_next[n + e] = next.v[e];
    }
    below = mid;
    mid = above;
  }
}

template <class T, int V>
__global__ void register_rows_kernel(WaveArgs<T> a, int rows) {
  const int i0 = V * int(blockIdx.x * blockDim.x + threadIdx.x);  // padded column of lane 0
  if (i0 >= a.g.NX()) return;
  const int k0 = a.k_begin + int(blockIdx.z) * rows, k1 = min(k0 + rows, a.k_end);
  if (i0 >= 1 && i0 + V - 1 <= a.g.nx) march_rows<true, T, V>(a, i0, k0, k1);
  else march_rows<false, T, V>(a, i0, k0, k1);
}

template <class T, int V>
void launch(const WaveCall<T>& c) {
  ZWalk w = z_walk(c, "wave/step/register_rows");
  if (w.empty()) return;
  w.grid.x = ceil_div(c.grid.NX(), (long long)V * c.tuning.bx);
  register_rows_kernel<T, V><<<w.grid, w.block, 0, stream_of(c.exec)>>>(wave_args(c), w.sz);
  NSB_LAUNCHED("register_rows_kernel");
}

// The widest vector (at most 16 bytes) that divides the row length and every array's alignment.
template <class T>
int vector_width(const WaveCall<T>& c) {
  const auto aligned = [&](int v) {
    const std::uintptr_t bytes = std::uintptr_t(v) * sizeof(T);
    return c.grid.NX() % v == 0 && std::uintptr_t(c.u_prev) % bytes == 0 && std::uintptr_t(c.u) % bytes == 0 &&
           std::uintptr_t(c.u_next) % bytes == 0;
  };
  for (int v = int(16 / sizeof(T)); v > 1; v /= 2)
    if (aligned(v)) return v;
  return 1;
}

template <class T>
void run(const WaveCall<T>& c) {
  const int v = vector_width(c);
  if constexpr (sizeof(T) == 4)
    if (v == 4) return launch<T, 4>(c);
  if (v == 2) return launch<T, 2>(c);
  launch<T, 1>(c);
}

// Several rows per thread (sz) and wide 1D blocks (bx); by = 1: a block is one row of threads. The first
// is the fastest measured at 16384^2 on an H200 (docs/performance-notes.md, "The wave solver").
std::vector<Tuning> row_tunings() {
  std::vector<Tuning> t;
  for (const char* name : {"bx128_by1_sz16", "bx128_by1_sz32", "bx128_by1_sz64", "bx256_by1_sz16", "bx256_by1_sz32",
                           "bx256_by1_sz64", "bx64_by1_sz32", "bx512_by1_sz32"})
    t.push_back(parse_tuning(name));
  return t;
}

// Which instance runs depends on the grid (vector_width), not on the tuning: every instance is listed.
std::vector<KernelRef> kernels() {
  return {{"register_rows_kernel<float, 4>", (const void*)&register_rows_kernel<float, 4>, 4},
          {"register_rows_kernel<float, 2>", (const void*)&register_rows_kernel<float, 2>, 4},
          {"register_rows_kernel<float, 1>", (const void*)&register_rows_kernel<float, 1>, 4},
          {"register_rows_kernel<double, 2>", (const void*)&register_rows_kernel<double, 2>, 8},
          {"register_rows_kernel<double, 1>", (const void*)&register_rows_kernel<double, 1>, 8}};
}

const Registrar reg{Variant{
    .stage = "wave/step",
    .name = "register_rows",
    .backend = Backend::cuda,
    .tags = {{"memory", "register"}, {"cta", "1d"}, {"traversal", "row_march"}, {"access", "vector"}},
    .tunings = row_tunings(),
    .status = "bandwidth-bound: u from DRAM once",
    .run_float = &run<float>,
    .run_double = &run<double>,
    .kernels = kernels(),
}};

}  // namespace
}  // namespace nsb
