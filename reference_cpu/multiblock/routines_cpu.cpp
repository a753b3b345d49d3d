// Every multiblock stage on the CPU: the correctness reference of every GPU variant and the paper's
// "1 CPU" baseline (the serial loops; cpu_omp is the same loops with an OpenMP region over j). One
// loop nest per block, blocks in the call's order, as the paper's Fortran routines.
//
// The scatter (flux, fluxtrb) adds each cell's four corners to its nodes. Both backends run a block's
// cells in two passes, even rows then odd rows (no two cells of one row pass share a corner, so OpenMP
// threads never add to one node), and so add in the same order: cpu_omp equals cpu_serial bit for bit.
#include <omp.h>

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "multiblock/host_side.hpp"
#include "multiblock/multigrid.hpp"
#include "registry.hpp"

namespace nsb {
namespace {

template <class T, class Op>
void each_node(const MbCall<T>& c, const Op& op) {
  const bool parallel = c.exec.backend == Backend::cpu_omp;
  const int threads = c.exec.threads > 0 ? c.exec.threads : omp_get_max_threads();
  const int n = c.grid.nx;
  for (int q = 0; q < c.nblocks; ++q) {
    const int b = c.blocks[q];
#pragma omp parallel for schedule(static) num_threads(threads) if (parallel)
    for (int j = 1; j <= n; ++j)
      for (int i = 1; i <= n; ++i) op(b, i, j, mb_idx(c.grid, b, i, j));
  }
}

template <class Phys, class T>
void scatter_cells(const MbCall<T>& c) {
  const bool parallel = c.exec.backend == Backend::cpu_omp;
  const int threads = c.exec.threads > 0 ? c.exec.threads : omp_get_max_threads();
  const int n = c.grid.nx;
  const std::ptrdiff_t sj = c.grid.sy();
  for (int q = 0; q < c.nblocks; ++q) {
    const int b = c.blocks[q];
    for (int parity = 0; parity < 2; ++parity) {
#pragma omp parallel for schedule(static) num_threads(threads) if (parallel)
      for (int j = 1 + parity; j < n; j += 2)
        for (int i = 1; i < n; ++i) {
          const std::size_t c00 = mb_idx(c.grid, b, i, j);
          T out[4][Phys::kVars];
          ni_cell<Phys>(c.a, c00, sj, out);
          for (int k = 0; k < 4; ++k)
            for (int v = 0; v < Phys::kVars; ++v) c.a.f[Phys::kFirst + v][mb_corner(c00, sj, k)] += out[k][v];
        }
    }
  }
}

// A reduction over the call's nodes: order does not matter for min and max, so serial and OpenMP agree.
template <class T, class Value, class Better>
double reduce_nodes(const MbCall<T>& c, const Value& value, const Better& better, T start) {
  const int n = c.grid.nx;
  T best = start;
  for (int q = 0; q < c.nblocks; ++q)
    for (int j = 1; j <= n; ++j)
      for (int i = 1; i <= n; ++i) {
        const T v = value(mb_idx(c.grid, c.blocks[q], i, j));
        if (v != v || better(v, best)) best = v;  // NaN wins (as the GPU reductions): a blow-up shows
        if (best != best) return double(best);
      }
  return double(best);
}

template <class T>
void conjugatep(const MbCall<T>& c) {
  each_node(c, [&](int, int, int, std::size_t n) { conjugatep_point(c.a, n, c.grid.sy()); });
}
template <class T>
void lamvis(const MbCall<T>& c) {
  each_node(c, [&](int, int, int, std::size_t n) { lamvis_point(c.a, n); });
}
template <class T>
void deltatp(const MbCall<T>& c) {
  each_node(c, [&](int, int, int, std::size_t n) { deltatp_point(c.a, n); });
}
template <class T>
void stressp(const MbCall<T>& c) {
  each_node(c, [&](int, int, int, std::size_t n) { stressp_point(c.a, n, c.grid.sy()); });
}
template <class T>
void stresstrb(const MbCall<T>& c) {
  each_node(c, [&](int, int, int, std::size_t n) { stresstrb_point(c.a, n, c.grid.sy()); });
}
template <class T>
void flux(const MbCall<T>& c) {
  scatter_cells<MbMeanFlow>(c);
}
template <class T>
void fluxtrb(const MbCall<T>& c) {
  scatter_cells<MbTurbulence>(c);
}
template <class T>
void smthp(const MbCall<T>& c) {
  each_node(c, [&](int, int i, int j, std::size_t n) { smthp_point(c.a, n, c.grid.sy(), i, j, c.grid.nx); });
}
template <class T>
void smthtrb(const MbCall<T>& c) {
  each_node(c, [&](int, int i, int j, std::size_t n) { smthtrb_point(c.a, n, c.grid.sy(), i, j, c.grid.nx); });
}
template <class T>
void update(const MbCall<T>& c) {
  each_node(c, [&](int b, int, int, std::size_t n) { update_point(c.a, n, mb_is_fluid(b)); });
}
template <class T>
void dtmin(const MbCall<T>& c) {
  *c.scalar = reduce_nodes(c, [&](std::size_t n) { return c.a.f[kDt][n]; }, [](T v, T best) { return v < best; },
                           std::numeric_limits<T>::infinity());
}
template <class T>
void resmax(const MbCall<T>& c) {
  *c.scalar = reduce_nodes(c, [&](std::size_t n) { return resmax_point(c.a, n); }, [](T v, T best) { return best < v; }, T(0));
}
template <class T>
void ifsum(const MbCall<T>& c) {
  mb_cpu_host_routine(MbStage::ifsum, c);
}
template <class T>
void bc(const MbCall<T>& c) {
  mb_cpu_host_routine(MbStage::bc, c);
}
// Serial in both backends, as the paper's host code (each rank's own blocks: no exchange).
template <class T>
void multigrid(const MbCall<T>& c) {
  if (!c.host || !c.host->mesh) throw std::logic_error("multiblock multigrid: the call has no mesh");
  mb_multigrid(*c.host->mesh, c.a, c.blocks, c.nblocks, c.levels);
}

struct Entry {
  const char* stage;
  StageFn f, d;
};
#define NSB_MB_ENTRY(name) Entry{"multiblock/" #name, StageFn(&name<float>), StageFn(&name<double>)}
const Entry kEntries[] = {NSB_MB_ENTRY(conjugatep), NSB_MB_ENTRY(lamvis),  NSB_MB_ENTRY(deltatp), NSB_MB_ENTRY(dtmin),
                          NSB_MB_ENTRY(stressp),    NSB_MB_ENTRY(stresstrb), NSB_MB_ENTRY(flux),  NSB_MB_ENTRY(fluxtrb),
                          NSB_MB_ENTRY(ifsum),      NSB_MB_ENTRY(smthp),   NSB_MB_ENTRY(smthtrb), NSB_MB_ENTRY(multigrid),
                          NSB_MB_ENTRY(update),     NSB_MB_ENTRY(resmax),  NSB_MB_ENTRY(bc)};
#undef NSB_MB_ENTRY

bool register_all() {
  for (const Entry& e : kEntries)
    for (Backend b : {Backend::cpu_serial, Backend::cpu_omp}) {
      Variant v;
      v.stage = e.stage;
      v.name = backend_name(b);
      v.backend = b;
      v.status = b == Backend::cpu_serial ? "reference; the paper's 1 CPU core" : "reference, OpenMP";
      v.run_float = e.f;
      v.run_double = e.d;
      Registry::instance().add(std::move(v));
    }
  return true;
}
const bool registered = register_all();

}  // namespace
}  // namespace nsb
