// The fractional-step solver's stage kinds on the CPU (formulas.hpp): the correctness reference of every
// GPU variant. cpu_serial and cpu_omp are the same loops with the OpenMP region off or on; every point
// (every line for ADI) is computed alone, so the two agree bit for bit.
#include <omp.h>

#include "fracstep/stage_call.hpp"
#include "transpose/transpose_ranks_host.hpp"
#include "registry.hpp"

namespace nsb {
namespace {

template <class T>
int threads_of(const FracstepCall<T>& c) {
  return c.exec.threads > 0 ? c.exec.threads : omp_get_max_threads();
}
template <class T>
bool parallel(const FracstepCall<T>& c) {
  return c.exec.backend == Backend::cpu_omp;
}

template <class T>
void rhs(const FracstepCall<T>& c) {
  const Grid g = c.grid;
  const T* const* vel = c.vel;
#pragma omp parallel for schedule(static) num_threads(threads_of(c)) if (parallel(c))
  for (int k = 1; k <= g.nz; ++k)
    for (int j = 1; j <= g.ny; ++j)
      for (int i = 1; i <= g.nx; ++i)
        for (int comp = 0; comp < 3; ++comp) {
          const std::size_t n = g.idx(i, j, k);
          if (!is_unknown_row(g, comp, j, c.spacing.walls)) {
            c.dvel[comp][n] = T(0), c.conv[comp][n] = T(0);
            continue;
          }
          const T conv = convection(vel, g, c.spacing, comp, i, j, k);
          c.dvel[comp][n] = rhs_point(conv, c.conv_old[comp][n], pressure_gradient(c.p, g, c.spacing, comp, i, j, k),
                                      laplacian(c.vel[comp], g, c.spacing, comp, i, j, k), c.coef.force[comp], c.coef);
          c.conv[comp][n] = conv;
        }
}

// V1 on a real z-slab rank: du, dv, dw to the rank's x-slabs (M1), every whole z line there solved as V0
// solves it (adi_line, the same table; its stride is the x-slab's plane), and back (M2).
template <class T>
void adi_z_on_x_slabs(const FracstepCall<T>& c, ZSlabTransposes<T>& z) {
  const bool timed = c.timer && c.z_all_to_all >= 0;
  if (timed) c.timer->begin(c.z_all_to_all);
  z.to_x_slabs(c.dvel);
  if (timed) c.timer->end(c.z_all_to_all);
  const int columns = z.columns(), ny = z.shape().ny;
  const std::ptrdiff_t stride = std::ptrdiff_t(columns) * ny;
#pragma omp parallel for schedule(static) num_threads(threads_of(c)) if (parallel(c))
  for (int line = 0; line < columns * ny; ++line)
    for (int comp = 0; comp < 3; ++comp) adi_line(c.adi[2][comp], z.x_slab(comp) + line, stride);
  if (timed) c.timer->begin(c.z_all_to_all);
  z.to_z_slabs(c.dvel);
  if (timed) c.timer->end(c.z_all_to_all);
}

template <class T>
void adi(const FracstepCall<T>& c, int axis) {
  const Grid g = c.grid;
  if (axis == 1 && c.y_overlap)  // the message stream is a GPU's
    throw std::invalid_argument("fracstep: V2-async's adi_y runs on GPU ranks (--backend cuda), not on the CPU");
  if (axis == 1 && c.y_messages) {  // a real y-slab rank: its own part, the messages to its neighbours
    const AdiYLines<T> lines = adi_y_lines(c);
    split_solve_rank(lines, split_buffers(c.split_words, lines.count(), c.y_ranks, c.y_exact, 1), c.y_exact,
                     HostSplitLaunch{threads_of(c), parallel(c)}, RankPhaseSections{c.timer, c.rank_phases}, c.y_rank, *c.y_messages);
    return;
  }
  if (axis == 1 && c.y_ranks > 1 && c.rank_phases >= 0) {
    const AdiYLines<T> lines = adi_y_lines(c);
    split_solve_phased(lines, split_buffers(c.split_words, lines.count(), c.y_ranks, c.y_exact), c.y_exact,
                       HostSplitLaunch{threads_of(c), parallel(c)}, RankPhaseSections{c.timer, c.rank_phases});
    return;
  }
  if (axis == 2 && c.z_slabs) return adi_z_on_x_slabs(c, *c.z_slabs);
  const AdiLines lines = adi_lines(g, axis);
#pragma omp parallel for schedule(static) num_threads(threads_of(c)) if (parallel(c))
  for (int line = 0; line < lines.count; ++line)
    for (int comp = 0; comp < 3; ++comp) {
      const std::size_t start = adi_line_start(g, axis, line);
      if (axis == 1 && c.y_ranks > 1) {
        T* const* s = c.y_scratch[comp];
        adi_line_split(c.adi[1][comp], c.dvel[comp] + start, lines.stride, c.y_ranks, c.y_exact, s[0] + start, s[1] + start, s[2] + start,
                       g.ny);
      } else {
        adi_line(c.adi[axis][comp], c.dvel[comp] + start, lines.stride);
      }
    }
}
template <class T>
void adi_x(const FracstepCall<T>& c) {
  adi(c, 0);
}
template <class T>
void adi_y(const FracstepCall<T>& c) {
  adi(c, 1);
}
template <class T>
void adi_z(const FracstepCall<T>& c) {
  adi(c, 2);
}

template <class T>
void divergence(const FracstepCall<T>& c) {
  const Grid g = c.grid;
  const T* const* vel = c.vel;
  const T* const* dvel = c.dvel;
#pragma omp parallel for schedule(static) num_threads(threads_of(c)) if (parallel(c))
  for (int k = 1; k <= g.nz; ++k)
    for (int j = 1; j <= g.ny; ++j)
      for (int i = 1; i <= g.nx; ++i) c.div[g.idx(i, j, k)] = divergence_point(vel, dvel, g, c.spacing, i, j, k);
}

template <class T>
void correct(const FracstepCall<T>& c) {
  const Grid g = c.grid;
#pragma omp parallel for schedule(static) num_threads(threads_of(c)) if (parallel(c))
  for (int k = 1; k <= g.nz; ++k)
    for (int j = 1; j <= g.ny; ++j)
      for (int i = 1; i <= g.nx; ++i) {
        const std::size_t n = g.idx(i, j, k);
        for (int comp = 0; comp < 3; ++comp)
          if (is_unknown_row(g, comp, j, c.spacing.walls))
            c.vel[comp][n] = corrected_velocity(c.vel[comp][n], c.dvel[comp][n],
                                                pressure_gradient(c.phi, g, c.spacing, comp, i, j, k), c.coef);
        c.p[n] += c.phi[n];
      }
}

Variant cpu(const char* stage, Backend b, void (*f32)(const FracstepCall<float>&), void (*f64)(const FracstepCall<double>&)) {
  return cpu_reference_variant(stage, b, f32, f64);
}

#define NSB_FRACSTEP_CPU(stage_name, fn)                                                                   \
  const Registrar fn##_serial{cpu("fracstep/" stage_name, Backend::cpu_serial, &fn<float>, &fn<double>)}; \
  const Registrar fn##_omp{cpu("fracstep/" stage_name, Backend::cpu_omp, &fn<float>, &fn<double>)};

NSB_FRACSTEP_CPU("rhs", rhs)
NSB_FRACSTEP_CPU("adi_x", adi_x)
NSB_FRACSTEP_CPU("adi_y", adi_y)
NSB_FRACSTEP_CPU("adi_z", adi_z)
NSB_FRACSTEP_CPU("divergence", divergence)
NSB_FRACSTEP_CPU("correct", correct)

}  // namespace
}  // namespace nsb
