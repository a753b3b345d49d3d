// The fractional-step solver's stage call: what every variant of its stage kinds receives
// (harness/solvers/fracstep/stages.cpp). One call structure for all of them; each kind reads and writes
// its own part (formulas.hpp has the equations):
//
//   fracstep/rhs         reads u v w, p, n_old -> writes du dv dw (the sub-step's right-hand side times
//                        dt) and n (N(u^{k-1}), for the next sub-step); v's wall row j = ny gets 0 in both
//   fracstep/adi_x       du dv dw in place: (1 - beta Lx)^{-1} on every x line (cyclic)
//   fracstep/adi_y       the same along y (Thomas; u, w: mirrored walls; v: wall faces)
//   fracstep/adi_z       the same along z (cyclic)
//   fracstep/divergence  reads u v w, du dv dw -> writes div = div(u + du) at the cells
//   fracstep/correct     reads du dv dw, phi -> u v w += du - 2 alpha dt G phi; p += phi
//
// Every kind works on the whole interior of its grid (no z range): the whole channel, a y-slab rank's
// rows (V2 on real ranks: spacing.walls says which y faces are walls) or a z-slab rank's planes (V1 on
// real host or GPU ranks: spacing.walls.z_wrap false, its ghost planes read).
#pragma once

#include <string>

#include "fracstep/formulas.hpp"
#include "grid.hpp"
#include "stage.hpp"
#include "stage_kind.hpp"
#include "timer.hpp"

namespace nsb {

template <class T>
class ZSlabTransposes;  // transpose/transpose.hpp (V1's ranks: host or GPU)

template <class T>
struct FracstepCall {
  using value_type = T;
  Grid grid;
  T* vel[3] = {nullptr, nullptr, nullptr};    // u, v, w
  T* dvel[3] = {nullptr, nullptr, nullptr};   // du, dv, dw
  T* conv[3] = {nullptr, nullptr, nullptr};   // N(u^{k-1}), written by rhs
  const T* conv_old[3] = {nullptr, nullptr, nullptr};  // N(u^{k-2}), read by rhs
  T* p = nullptr;
  const T* phi = nullptr;
  T* div = nullptr;
  Spacing<T> spacing{};
  SubstepCoef<T> coef;
  AdiTable<T> adi[3][3];  // [axis][component], in the backend's memory
  // V2 (y-slabs on virtual ranks): adi_y splits its lines over y_ranks (PDD, or PPT when y_exact) with
  // the scratch v, w, c' of each component (fields of the grid's layout); y_ranks = 1: V0.
  int y_ranks = 1;
  bool y_exact = false;
  T* y_scratch[3][3] = {};  // [component][v, w, cp]
  // split_factors=shared: this sub-step's v, w, c' of each component's blocks, set up once
  // (AdiYSplitFactors: one line of the channel's rows each); the y_scratch fields are then not used.
  T* y_factors[3][3] = {};  // [component][v, w, cp]; null: the per-line form
  // V2 timed rank by rank (tridiag/split_phases.hpp): rank r's phase q of adi_y is section rank_phases +
  // r * 5 + q of timer; split_words: the ranks' message buffers (split_buffer_words). -1: one pass.
  int rank_phases = -1;
  SectionTimer* timer = nullptr;
  T* split_words = nullptr;
  // V2 on a real y-slab rank (y_messages set): adi_y is this rank's split_solve_rank (rank y_rank of
  // y_ranks; its rows start at the channel's row y_first, of y_cells), the messages through y_messages
  // and split_words its own (split_buffer_words(.., slots = 1)); grid and spacing are the rank's.
  SplitMessages<T>* y_messages = nullptr;
  int y_rank = 0, y_first = 0, y_cells = 0;
  // V2-async on a real GPU rank (y_overlap set): adi_y is split_solve_rank_pipelined in y_batches batches,
  // y_messages on the message stream that y_overlap orders against the call's stream; untimed inside.
  SplitOverlap* y_overlap = nullptr;
  int y_batches = 1;
  // V1 on a real z-slab rank, host or GPU (z_slabs set): adi_z transposes du, dv, dw to the rank's x-slabs
  // (the all-to-all M1), solves their whole z lines there and transposes back (M2); grid is the rank's z-slab.
  ZSlabTransposes<T>* z_slabs = nullptr;
  int z_all_to_all = -1;  // the section of timer its transposes are timed in (-1: untimed)
  Tuning tuning;
  Exec exec;
};

// V2's y lines of a call, for the phased split solve (adi_y rank by rank: tridiag/split_phases.hpp).
template <class T>
AdiYLines<T> adi_y_lines(const FracstepCall<T>& c) {
  AdiYLines<T> l{c.grid, c.y_ranks, {}, {}, {}, c.y_first, c.y_cells};
  for (int comp = 0; comp < 3; ++comp) {
    l.t[comp] = c.adi[1][comp], l.x[comp] = c.dvel[comp];
    for (int m = 0; m < 3; ++m) l.scratch[comp][m] = c.y_scratch[comp][m], l.factor[comp][m] = c.y_factors[comp][m];
  }
  return l;
}

// The stage kinds, in step order.
inline const char* const kFracstepStages[] = {"rhs", "adi_z", "adi_y", "adi_x", "divergence", "correct"};

// The work of one call (models.cpp): each input read once and each output written once, over the
// interior cells; flops counted by running the formulas on an operation-counting number type.
WorkModel fracstep_model(const std::string& stage, const Grid& g, int elem_bytes);
double fracstep_flops_per_point(const std::string& stage);

}  // namespace nsb
