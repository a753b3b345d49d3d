// Geometric multigrid for the Poisson family (methods mg, mg_f, mg_wj, mg_f_wj; multigrid.cpp), on one
// rank, for any set of homogeneous faces.
//
// Levels: cell-centred, each halving every axis of the one above (multigrid_formulas.hpp), the faces
// carried to every level, down to a coarsest level of at most kMgCoarsestMaxCells cells solved by
// red-black Gauss-Seidel sweeps in one GPU block (mg_coarse_sweeps). A cycle on level l: `pre`
// smoothing sweeps, the residual, restriction to level l+1 (8-cell average), a zero correction there
// solved by one cycle (V) or one F- then one V-cycle (F), trilinear prolongation added to level l,
// `post` smoothing sweeps. Singular problems (no dirichlet face): the fine right-hand side's mean is
// removed before the cycles, every coarse right-hand side's mean after its restriction, and the
// solution's mean is set to zero on return (the family's null-space rule, poisson.hpp).
//
// Settings (PoissonSettings): `iterations` cycles, or the cap with a `tolerance` (relative to the RMS
// of the mean-free right-hand side, checked after every cycle unless `check_every` says otherwise: a
// check costs about a sixth of a cycle, a cycle past the tolerance a whole one); `kernels` picks the
// variant of each poisson/mg_* stage.
#pragma once

#include <string>
#include <vector>

#include "grid.hpp"
#include "poisson/poisson.hpp"

namespace nsb {

enum class MgCycle { v, f };
enum class MgSmoother { red_black_gauss_seidel, weighted_jacobi };

struct MgOptions {
  MgCycle cycle = MgCycle::v;
  MgSmoother smoother = MgSmoother::red_black_gauss_seidel;
  int pre = 2, post = 2;  // smoothing sweeps before and after the coarse-grid correction
  // The smoother's relaxation: red-black Gauss-Seidel over-relaxed by omega (1: plain Gauss-Seidel, the
  // default); weighted Jacobi's weight (default 6/7, kMgJacobiWeight). 0: the smoother's default.
  double omega = 0;
  // The residual and its restriction in one pass (poisson/mg_residual_restrict), or as two
  // (poisson/mg_residual into the spare array, then poisson/mg_restrict): the same values either way.
  bool fused_restriction = true;
  // One cycle captured as a CUDA graph and replayed (StreamGraph): a cycle launches 134 kernels (V(2,2)
  // at 256^3), most on coarse levels where a launch costs more than the kernel. Plain launches on the
  // CPU and inside an enclosing capture (--launch graph); the same values either way.
  bool graph = false;
};

// The options behind a method's name: mg (V, red-black Gauss-Seidel), mg_f (F, red-black Gauss-Seidel),
// mg_wj (V, weighted Jacobi), mg_f_wj (F, weighted Jacobi); a "_graph" suffix (mg_graph, mg_f_graph) adds
// MgOptions::graph. `options` (what follows ':' in --poisson, PoissonSettings::options) are words joined
// by '_': preN and postN the smoothing sweeps (0 to 10 each, at least one in all), wN the smoother's omega
// in hundredths (as rbsor's tuning axis w: w115 = 1.15), in (0, 2). Throws std::invalid_argument for
// another name or option, naming it.
MgOptions mg_method_options(const std::string& method, const std::string& options = "");
// The options of a method as the words mg_method_options reads ("pre2_post2_w100").
std::string mg_options_text(const MgOptions& o);
// The cycles between convergence checks when PoissonSettings::check_every is 0 (the method's default).
inline constexpr int kMgDefaultCheckEvery = 1;

// The levels of a fine grid, finest first: every axis halved while all are even and at least 4. Throws
// std::invalid_argument naming the grid, where halving stops and what would work when the coarsest
// level is too large for the coarsest-level solve (more than kMgCoarsestMaxCells cells, or a side over 16).
std::vector<Grid> mg_levels(const Grid& fine);

// Red-black Gauss-Seidel sweeps of the coarsest-level solve: 2 n^2 + 8 for a longest side of n cells,
// enough for about 1e-8 on it (a sweep reduces the smoothest error by about 1 - pi^2 / n^2).
int mg_coarse_sweeps(const Grid& coarsest);

// The cost of one cycle, counted by running the cycle's code without kernels: its modelled bytes over
// those of one fine-grid Jacobi sweep (3 words a point), the cycle's cost in "fine-grid Jacobi-sweep
// equivalents" by the byte model, and the kernels it launches (the coarse levels' cost on a GPU is
// their launch latency, which the byte model does not see).
struct MgCycleCost {
  double sweep_equivalents = 0;
  int kernels = 0;
};
MgCycleCost mg_cycle_cost(const Grid& fine, const MgOptions& o, const PoissonFaces& faces);

}  // namespace nsb
