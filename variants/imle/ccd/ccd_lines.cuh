// What the imle/ccd kernels share: one thread per line (the paper's mapping, Sec. 3.2) over any map of
// lines, in 1D or 2D blocks, each thread running the shared line solve (ccd_formulas.hpp) in global
// memory. A map says how many lines there are (count1 x count2), where line (l1, l2) starts and how
// far apart its cells are: the grid's own lines (CcdLines, ccd_call.hpp) or x-lines of a transposed
// copy (transposed.cu).
#pragma once

#include "grid.hpp"  // before traversals.cuh, which uses Grid without including it
#include "common/traversals.cuh"
#include "imle/ccd_call.hpp"

namespace nsb {

// The call without its tuning (a kernel argument must be trivially copyable), over line map Map.
template <class T, class Map>
struct CcdArgs {
  Map lines;
  CcdBc bc;
  const T* phi;
  T* d1;
  T* d2;
  const T* factor;
  T h;
};

template <class T, class Map>
__device__ inline void ccd_thread_line(const CcdArgs<T, Map>& a, int l1, int l2) {
  if (l1 >= a.lines.count1 || l2 >= a.lines.count2) return;
  const std::size_t b = a.lines.base(l1, l2);
  ccd_solve_line(a.phi + b, a.d1 + b, a.d2 + b, a.lines.stride, a.lines.n, a.bc, a.factor, a.h);
}

// A flat 1D block of bx threads over every line, l1 fastest.
template <class T, class Map>
__global__ void ccd_line_1d_kernel(CcdArgs<T, Map> a) {
  const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= (long long)a.lines.count1 * a.lines.count2) return;
  ccd_thread_line(a, int(t % a.lines.count1), int(t / a.lines.count1));
}

// 2D blocks of bx x by threads over (l1, l2).
template <class T, class Map>
__global__ void ccd_line_2d_kernel(CcdArgs<T, Map> a) {
  ccd_thread_line(a, int(blockIdx.x * blockDim.x + threadIdx.x), int(blockIdx.y * blockDim.y + threadIdx.y));
}

template <class T, class Map>
void launch_ccd_lines_1d(const CcdArgs<T, Map>& a, const Tuning& t, cudaStream_t s, const char* variant) {
  check_block(t.bx, variant);
  const long long lines = (long long)a.lines.count1 * a.lines.count2;
  if (lines == 0) return;
  ccd_line_1d_kernel<<<ceil_div(lines, t.bx), t.bx, 0, s>>>(a);
  NSB_LAUNCHED("ccd_line_1d_kernel");
}

template <class T, class Map>
void launch_ccd_lines_2d(const CcdArgs<T, Map>& a, const Tuning& t, cudaStream_t s, const char* variant) {
  check_block(t.bx * t.by, variant);
  if (a.lines.count1 == 0 || a.lines.count2 == 0) return;
  const dim3 grid(ceil_div(a.lines.count1, t.bx), ceil_div(a.lines.count2, t.by));
  ccd_line_2d_kernel<<<grid, dim3(t.bx, t.by), 0, s>>>(a);
  NSB_LAUNCHED("ccd_line_2d_kernel");
}

template <class T>
CcdArgs<T, CcdLines> ccd_args(const CcdCall<T>& c) {
  return {ccd_lines(c), c.bc, c.phi, c.d1, c.d2, c.factor, c.h};
}

}  // namespace nsb
