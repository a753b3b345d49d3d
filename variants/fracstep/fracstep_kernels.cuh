// What the fractional-step solver's global-memory GPU variants share (variants/fracstep/<stage>/): the
// call as a kernel argument, a thread a cell in 2D blocks over (i, j) with blockIdx.z the z level (rhs,
// divergence, correct), and a thread a line (ADI sweeps, blockIdx.y the velocity component). Every kernel
// runs the CPU reference's formulas (harness/solvers/fracstep/formulas.hpp).
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "common/traversals.cuh"
#include "fracstep/stage_call.hpp"
#include "transpose/transpose.hpp"
#include "registry.hpp"
#include "tridiag/split_phases.cuh"

namespace nsb {

// FracstepCall without its tuning and exec (a kernel argument must be trivially copyable).
template <class T>
struct FracstepArgs {
  Grid g;
  T* vel[3];
  T* dvel[3];
  T* conv[3];
  const T* conv_old[3];
  T* p;
  const T* phi;
  T* div;
  Spacing<T> s;
  SubstepCoef<T> coef;
  AdiTable<T> adi[3];  // the sweep's axis, per component
  int y_ranks;         // V2's y sweep (stage_call.hpp)
  bool y_exact;
  T* y_scratch[3][3];
};

template <class T>
FracstepArgs<T> fracstep_args(const FracstepCall<T>& c, int axis) {
  FracstepArgs<T> a{};
  a.g = c.grid;
  for (int k = 0; k < 3; ++k)
    a.vel[k] = c.vel[k], a.dvel[k] = c.dvel[k], a.conv[k] = c.conv[k], a.conv_old[k] = c.conv_old[k],
    a.adi[k] = c.adi[axis][k];
  a.p = c.p, a.phi = c.phi, a.div = c.div, a.s = c.spacing, a.coef = c.coef;
  a.y_ranks = c.y_ranks, a.y_exact = c.y_exact;
  for (int k = 0; k < 3; ++k)
    for (int m = 0; m < 3; ++m) a.y_scratch[k][m] = c.y_scratch[k][m];
  return a;
}

// The cell of this thread (1-based interior indices), or false outside the grid.
__device__ __forceinline__ bool fracstep_cell(const Grid& g, int& i, int& j, int& k) {
  i = int(blockIdx.x * blockDim.x + threadIdx.x) + 1;
  j = int(blockIdx.y * blockDim.y + threadIdx.y) + 1;
  k = int(blockIdx.z) + 1;
  return i <= g.nx && j <= g.ny;
}

template <class T>
__global__ void fracstep_rhs_kernel(FracstepArgs<T> a) {
  int i, j, k;
  if (!fracstep_cell(a.g, i, j, k)) return;
  const std::size_t n = a.g.idx(i, j, k);
  const T* const* vel = a.vel;
  for (int comp = 0; comp < 3; ++comp) {
    if (!is_unknown_row(a.g, comp, j, a.s.walls)) {
      a.dvel[comp][n] = T(0), a.conv[comp][n] = T(0);
      continue;
    }
    const T conv = convection(vel, a.g, a.s, comp, i, j, k);
    a.dvel[comp][n] = rhs_point(conv, a.conv_old[comp][n], pressure_gradient(a.p, a.g, a.s, comp, i, j, k),
                                laplacian(a.vel[comp], a.g, a.s, comp, i, j, k), a.coef.force[comp], a.coef);
    a.conv[comp][n] = conv;
  }
}

template <class T>
__global__ void fracstep_divergence_kernel(FracstepArgs<T> a) {
  int i, j, k;
  if (!fracstep_cell(a.g, i, j, k)) return;
  const T* const* vel = a.vel;
  const T* const* dvel = a.dvel;
  a.div[a.g.idx(i, j, k)] = divergence_point(vel, dvel, a.g, a.s, i, j, k);
}

template <class T>
__global__ void fracstep_correct_kernel(FracstepArgs<T> a) {
  int i, j, k;
  if (!fracstep_cell(a.g, i, j, k)) return;
  const std::size_t n = a.g.idx(i, j, k);
  for (int comp = 0; comp < 3; ++comp)
    if (is_unknown_row(a.g, comp, j, a.s.walls))
      a.vel[comp][n] = corrected_velocity(a.vel[comp][n], a.dvel[comp][n],
                                          pressure_gradient(a.phi, a.g, a.s, comp, i, j, k), a.coef);
  a.p[n] += a.phi[n];
}

// The block shape of a pointwise call (tuning bx x by), its launch grid (z levels in gridDim.z).
struct CellBlocks {
  dim3 grid, block;
};
template <class T>
CellBlocks cell_blocks(const FracstepCall<T>& c, const char* who) {
  const int bx = c.tuning.bx > 0 ? c.tuning.bx : 32, by = c.tuning.by > 0 ? c.tuning.by : 4;
  if (c.grid.nz > 65535) throw std::invalid_argument(std::string(who) + ": nz above 65535 (one z level a grid row)");
  return {dim3(ceil_div(c.grid.nx, bx), ceil_div(c.grid.ny, by), unsigned(c.grid.nz)), dim3(unsigned(bx), unsigned(by))};
}

// Kernel K (a pointwise kernel above) on the call's stream.
template <class T, void (*K)(FracstepArgs<T>)>
void run_cells(const FracstepCall<T>& c, const char* name) {
  const CellBlocks b = cell_blocks(c, name);
  K<<<b.grid, b.block, 0, stream_of(c.exec)>>>(fracstep_args(c, 0));
  NSB_LAUNCHED(name);
}

inline std::vector<Tuning> fracstep_cell_tunings() {
  return {parse_tuning("bx32_by4"), parse_tuning("bx64_by2"), parse_tuning("bx128_by1")};
}

// ADI: a thread a line of the sweep's axis, blockIdx.y the component (formulas.hpp: adi_line).
template <class T, int Axis>
__global__ void fracstep_adi_kernel(FracstepArgs<T> a) {
  const int line = int(blockIdx.x * blockDim.x + threadIdx.x), comp = int(blockIdx.y);
  const AdiLines lines = adi_lines(a.g, Axis);
  if (line >= lines.count) return;
  const std::size_t start = adi_line_start(a.g, Axis, line);
  if (Axis == 1 && a.y_ranks > 1) {
    T* const* s = a.y_scratch[comp];
    adi_line_split(a.adi[comp], a.dvel[comp] + start, lines.stride, a.y_ranks, a.y_exact, s[0] + start, s[1] + start, s[2] + start,
                   a.g.ny);
  } else {
    adi_line(a.adi[comp], a.dvel[comp] + start, lines.stride);
  }
}

// V1 on a GPU z-slab rank: ADI-Z on the rank's x-slabs (compact, columns x ny x nz: line (i, j) starts at
// i + columns j, stride columns ny), a thread a whole z line, blockIdx.y the component, V0's table and line
// solve (adi_line), so every line's arithmetic is V0's.
template <class T>
struct XSlabZLines {
  AdiTable<T> t[3];
  T* x[3];
  int count;
  std::ptrdiff_t stride;
};
template <class T>
__global__ void fracstep_adi_z_x_slab_kernel(XSlabZLines<T> l) {
  const int line = int(blockIdx.x * blockDim.x + threadIdx.x), comp = int(blockIdx.y);
  if (line < l.count) adi_line(l.t[comp], l.x[comp] + line, l.stride);
}
// du, dv, dw to the x-slabs (M1), the z lines there, back (M2); the transposes timed in section z_all_to_all
// (the host path's sections: reference_cpu/fracstep/stages_cpu.cpp adi_z_on_x_slabs).
template <class T>
void adi_z_on_x_slabs(const FracstepCall<T>& c, ZSlabTransposes<T>& z, int threads) {
  const bool timed = c.timer && c.z_all_to_all >= 0;
  if (timed) c.timer->begin(c.z_all_to_all);
  z.to_x_slabs(c.dvel);
  if (timed) c.timer->end(c.z_all_to_all);
  XSlabZLines<T> l{};
  l.count = z.columns() * z.shape().ny, l.stride = std::ptrdiff_t(l.count);
  for (int comp = 0; comp < 3; ++comp) l.t[comp] = c.adi[2][comp], l.x[comp] = z.x_slab(comp);
  fracstep_adi_z_x_slab_kernel<T><<<dim3(ceil_div(l.count, threads), 3), threads, 0, stream_of(c.exec)>>>(l);
  NSB_LAUNCHED("fracstep_adi_z_x_slab_kernel");
  if (timed) c.timer->begin(c.z_all_to_all);
  z.to_z_slabs(c.dvel);
  if (timed) c.timer->end(c.z_all_to_all);
}

template <class T, int Axis>
void run_adi(const FracstepCall<T>& c) {
  const int threads = c.tuning.bx > 0 ? c.tuning.bx : 128;
  if constexpr (Axis == 2)  // V1 on a real GPU z-slab rank
    if (c.z_slabs) return adi_z_on_x_slabs(c, *c.z_slabs, threads);
  if (Axis == 1 && c.y_overlap) {  // V2-async: the same on a real rank, batch b's messages beside batch b + 1's work
    const AdiYLines<T> lines = adi_y_lines(c);
    split_solve_rank_pipelined(lines, c.split_words, c.y_exact, DeviceSplitLaunch{stream_of(c.exec), threads}, c.y_rank,
                               *c.y_messages, *c.y_overlap, c.y_batches);
    return;
  }
  if (Axis == 1 && c.y_messages) {  // a real y-slab rank: its own part, its messages (peer copies or NCCL) to its neighbours
    const AdiYLines<T> lines = adi_y_lines(c);
    split_solve_rank(lines, split_buffers(c.split_words, lines.count(), c.y_ranks, c.y_exact, 1), c.y_exact,
                     DeviceSplitLaunch{stream_of(c.exec), threads}, RankPhaseSections{c.timer, c.rank_phases}, c.y_rank, *c.y_messages);
    return;
  }
  if (Axis == 1 && c.y_ranks > 1 && c.rank_phases >= 0) {  // V2 rank by rank, phase by phase, each timed
    const AdiYLines<T> lines = adi_y_lines(c);
    split_solve_phased(lines, split_buffers(c.split_words, lines.count(), c.y_ranks, c.y_exact), c.y_exact,
                       DeviceSplitLaunch{stream_of(c.exec), threads}, RankPhaseSections{c.timer, c.rank_phases});
    return;
  }
  const AdiLines lines = adi_lines(c.grid, Axis);
  fracstep_adi_kernel<T, Axis><<<dim3(ceil_div(lines.count, threads), 3), threads, 0, stream_of(c.exec)>>>(
      fracstep_args(c, Axis));
  NSB_LAUNCHED("fracstep_adi_kernel");
}

// The registration of the ADI variant of axis Axis.
template <int Axis>
Variant adi_thread_per_line_variant(const char* stage, const char* status) {
  Variant v;
  v.stage = stage;
  v.name = "thread_per_line";
  v.backend = Backend::cuda;
  v.tags = {{"memory", "global"}, {"mapping", "thread_per_line"}};
  v.tunings = {parse_tuning("b128"), parse_tuning("b64"), parse_tuning("b256")};
  v.status = status;
  v.run_float = &run_adi<float, Axis>;
  v.run_double = &run_adi<double, Axis>;
  v.kernels = {{"fracstep_adi_kernel<float>", (const void*)&fracstep_adi_kernel<float, Axis>, 4},
               {"fracstep_adi_kernel<double>", (const void*)&fracstep_adi_kernel<double, Axis>, 8}};
  return v;
}

}  // namespace nsb
