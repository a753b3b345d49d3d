// Every stage of the grid generator (ogrid/sweep) and the stream-function/vorticity solver
// (streamvort/vorticity, /stream, /stream_sor, /boundary, /turbulence) on the CPU: the correctness reference of every GPU
// variant and the paper's serial baseline (one core, Table 2: no OpenMP). cpu_serial and cpu_omp are
// the same loops with the OpenMP region switched off or on (the labelled extra of notes Sec. 6.1); each
// node is computed alone and the residual is a maximum, so the two agree bit for bit.
#include <omp.h>

#include "registry.hpp"
#include "grid2d/stage_call.hpp"

namespace nsb {
namespace {

int threads_of(const Exec& e) { return e.threads > 0 ? e.threads : omp_get_max_threads(); }

// Op over the unknowns (rows 1..ny, columns 1..nx), or over one colour of them (sor_colour, below);
// the largest residual it returns.
template <class Op>
typename Op::value_type apply(const Op& op, const Exec& e, int colour = -1) {
  using T = typename Op::value_type;
  const Grid g = op.g;
  const int step = colour < 0 ? 1 : 2, i0 = 1 + (colour < 0 ? 0 : sor_colour_i(colour)),
            j0 = 1 + (colour < 0 ? 0 : sor_colour_j(colour));
  T res = T(0);
#pragma omp parallel for schedule(static) num_threads(threads_of(e)) if (e.backend == Backend::cpu_omp) reduction(max : res)
  for (int j = j0; j <= g.ny; j += step)
    for (int i = i0; i <= g.nx; i += step) {
      const std::size_t n = sv_node(g, i, j);
      res = sv_max(res, op(i, j, n, global_stencil(op, n)));
    }
  return res;
}

template <class T>
void grid_sweep(const GridSweepCall<T>& c) {
  *c.residual = apply(GridSweepOp<T>::of(c), c.exec);
}
template <class T>
void stream(const StreamCall<T>& c) {
  *c.residual = apply(StreamOp<T>::of(c), c.exec);
}
// One four-colour SOR sweep, in place (psi_new is psi): the colours in order 0..3.
template <class T>
void stream_sor(const StreamCall<T>& c) {
  T res = T(0);
  for (int colour = 0; colour < 4; ++colour) res = sv_max(res, apply(StreamOp<T>::of(c), c.exec, colour));
  *c.residual = res;
}
template <class T>
void vorticity(const VorticityCall<T>& c) {
  if (c.nu_eff) apply(TurbulentVorticityOp<T>::of(c), c.exec);
  else apply(VorticityOp<T>::of(c), c.exec);
}
template <class T>
void turbulence(const TurbulenceCall<T>& c) {
#pragma omp parallel for schedule(static) num_threads(threads_of(c.exec)) if (c.exec.backend == Backend::cpu_omp)
  for (int i = 1; i <= c.grid.nx; ++i) baldwin_lomax_column(TurbulenceOp<T>::of(c), i);
}
template <class T>
void boundary(const BoundaryCall<T>& c) {
#pragma omp parallel for schedule(static) num_threads(threads_of(c.exec)) if (c.exec.backend == Backend::cpu_omp)
  for (int i = 1; i <= c.grid.nx; ++i) boundary_column(BoundaryOp<T>::of(c), i);
}

Variant cpu(const char* stage, Backend b, StageFn f, StageFn d) {
  Variant v = cpu_reference_variant(stage, b, f, d);
  v.status = b == Backend::cpu_serial ? "reference; the paper's serial CPU baseline" : "reference, OpenMP (labelled extra)";
  return v;
}

const Registrar sweep_serial{cpu("ogrid/sweep", Backend::cpu_serial, &grid_sweep<float>, &grid_sweep<double>)};
const Registrar sweep_omp{cpu("ogrid/sweep", Backend::cpu_omp, &grid_sweep<float>, &grid_sweep<double>)};
const Registrar stream_serial{cpu("streamvort/stream", Backend::cpu_serial, &stream<float>, &stream<double>)};
const Registrar stream_omp{cpu("streamvort/stream", Backend::cpu_omp, &stream<float>, &stream<double>)};
const Registrar sor_serial{cpu("streamvort/stream_sor", Backend::cpu_serial, &stream_sor<float>, &stream_sor<double>)};
const Registrar sor_omp{cpu("streamvort/stream_sor", Backend::cpu_omp, &stream_sor<float>, &stream_sor<double>)};
const Registrar vorticity_serial{cpu("streamvort/vorticity", Backend::cpu_serial, &vorticity<float>, &vorticity<double>)};
const Registrar vorticity_omp{cpu("streamvort/vorticity", Backend::cpu_omp, &vorticity<float>, &vorticity<double>)};
const Registrar turbulence_serial{cpu("streamvort/turbulence", Backend::cpu_serial, &turbulence<float>, &turbulence<double>)};
const Registrar turbulence_omp{cpu("streamvort/turbulence", Backend::cpu_omp, &turbulence<float>, &turbulence<double>)};
const Registrar boundary_serial{cpu("streamvort/boundary", Backend::cpu_serial, &boundary<float>, &boundary<double>)};
const Registrar boundary_omp{cpu("streamvort/boundary", Backend::cpu_omp, &boundary<float>, &boundary<double>)};

}  // namespace
}  // namespace nsb
