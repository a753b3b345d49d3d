// The batched tridiagonal family's stage call: what every variant of tridiag/<layout> receives.
//
//   tridiag/contiguous   each system one run of n values (TridiagLayout::inner = 1)
//   tridiag/interleaved  unknown j of all systems one run (inner = batch)
//   tridiag/cyclic       interleaved and periodic (a_0, c_{n-1} are the corner couplings)
//   tridiag/lines_y      the lines along y of an x-fastest nx x ny x nz field (inner = nx): ADI-Y and
//                        TDMA-C in place, without a transpose
//   tridiag/pdd          lines along y, each system split into `ranks` blocks of rows solved by PDD
//                        (tridiag/pdd_formulas.hpp): the approximation the paper's ADI-Y makes
//   tridiag/ppt          the same split solved by PPT (exact): the paper's TDMA-C
//
// Every variant solves in place: x holds the right-hand sides on entry and the solutions on exit;
// a, b, c are read only. `work` is scratch the caller owns (6 values a point plus kTridiagWorkSlack
// bytes: c' of the Thomas sweeps, a library's buffer, copies a library may overwrite); its contents
// are undefined before and after a call.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

#include "grid.hpp"
#include "stage.hpp"
#include "stage_kind.hpp"
#include "tridiag/formulas.hpp"
#include "tridiag/pdd_formulas.hpp"

namespace nsb {

inline constexpr std::size_t kTridiagWorkValuesPerPoint = 6;
inline constexpr std::size_t kTridiagWorkSlack = std::size_t(64) << 20;

template <class T>
struct TridiagCall {
  using value_type = T;
  TridiagLayout layout;
  bool cyclic = false;
  int ranks = 1;     // tridiag/pdd, tridiag/ppt: the blocks (virtual ranks) each system is split into
  bool ppt = false;  // tridiag/ppt: the whole reduced system (exact), not PDD's 2x2 interface blocks
  const T* a = nullptr;  // sub-diagonal (a_0: the corner coupling when cyclic)
  const T* b = nullptr;  // main diagonal
  const T* c = nullptr;  // super-diagonal (c_{n-1}: the corner coupling when cyclic)
  T* x = nullptr;        // right-hand sides in, solutions out
  T* work = nullptr;
  std::size_t work_bytes = 0;
  Tuning tuning;
  Exec exec;
};

// The systems a fixture of stage kind `stage` builds on a generic tool's grid: nx*nz systems of ny
// unknowns (a 512^3 grid is a 512^3-point batch), contiguous, interleaved, or the lines along y of the
// x-fastest field itself (lines_y, pdd: inner = nx) as the kind says.
inline TridiagLayout tridiag_fixture_layout(const std::string& stage, const Grid& g) {
  TridiagLayout l;
  l.n = g.ny;
  l.batch = g.nx * g.nz;
  l.inner = stage == "contiguous" ? 1 : (stage == "lines_y" || stage == "pdd" || stage == "ppt") ? g.nx : l.batch;
  return l;
}

// What every variant checks before it runs: a cyclic system needs 3 unknowns, and the Thomas sweeps
// keep c' (and, cyclic, the Sherman-Morrison column z) in `work`.
template <class T>
void check_tridiag_call(const TridiagCall<T>& c) {
  const TridiagLayout& l = c.layout;
  if (l.n < 1 || l.batch < 1 || l.inner < 1 || l.batch % l.inner != 0)
    throw std::invalid_argument("tridiag: bad layout (n " + std::to_string(l.n) + ", batch " + std::to_string(l.batch) +
                                ", inner " + std::to_string(l.inner) + ")");
  if (c.cyclic && l.n < 3) throw std::invalid_argument("tridiag: a cyclic system needs at least 3 unknowns");
  if (c.ranks > 1 && (c.cyclic || l.n < 2 * c.ranks))
    throw std::invalid_argument("tridiag: PDD splits non-cyclic systems into blocks of at least 2 unknowns");
  if (c.work_bytes < std::size_t(c.ranks > 1 ? 3 : c.cyclic ? 2 : 1) * l.points() * sizeof(T))
    throw std::invalid_argument("tridiag: the work array is smaller than the solve needs");
}

// The work of one batch: a, b, c and the right-hand side read once, the solution written once (5 words
// an unknown). Scratch traffic (c' of Thomas, a library's buffer) is not in the model: it is the
// price of a method, and the fraction of the copy bandwidth shows it.
inline WorkModel tridiag_model(const TridiagLayout& l, double flops_per_point, int elem_bytes) {
  const double points = double(l.points());
  return {points, 5.0 * elem_bytes * points, flops_per_point * points};
}

}  // namespace nsb
