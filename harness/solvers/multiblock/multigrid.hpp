// A STAND-IN for the paper's CPU multigrid (Kemal et al. 2015 Sec. II: Ni's 1982 multiple-grid
// accelerator, run on the host "with divergent IF logic"; the paper gives no more, notes Sec. 1.2 step 7).
// It has Ni's data movement, not Ni's coarse-grid equations: after the smoothing, the fluid blocks' changes
// go to the host (GPU runs: whole planes of the six res fields, down and up), are restricted level by
// level within each block, smoothed on each coarse level, prolonged back and added to the fine changes,
// which the update then applies. Per block and per unknown, with d_0 = res / vol (the node's change):
//
//   restrict   r_l(I, J) = (4 c + 2 (its 4 edge neighbours) + (its 4 corner neighbours)) / 16 of c_{l-1}
//              around (2I, 2J), c_0 = d_0  (full weighting; the coarse block's edge nodes are 0)
//   smooth     c_l = r_l + (mean of r_l's four neighbours - r_l) / 2   (one damped Jacobi pass, edges 0)
//   prolong    e_L = c_L,  e_l = c_l + P e_{l+1},  res += vol w P e_1   (P bilinear)
//
// so a change that is constant over a block's middle grows there by w L (the coarse levels march smooth
// errors further, as Ni's do), a checkerboard (the finest mode, which full weighting removes) is left as
// it is, and the block's edge nodes are never touched: the interface sums, the shared copies and a run
// over ranks are unchanged by it (each block is its own rank's, no exchange). Solid blocks have none.
// On by `--case-param multigrid=L` (L coarse levels, 0 = off, the default).
#pragma once

#include "multiblock/formulas.hpp"
#include "multiblock/mesh.hpp"

namespace nsb {

inline constexpr double kMbMultigridWeight = 0.25;  // w: the coarse corrections' weight (stable in the loop tests)
inline constexpr int kMbMultigridMinNodes = 5;      // a coarse block keeps 3 interior nodes a side at least

// The coarse levels blocks of n nodes allow, at most `wanted`: each halves n - 1 evenly and keeps
// kMbMultigridMinNodes nodes (1033 allows 3: 517, 259, 130 nodes; 129 allows 5; 17 allows 2).
int mb_multigrid_levels(int n, int wanted);

// The stand-in on the fluid blocks among `blocks` of arrays `a` (its res fields; vol from the mesh).
template <class T>
void mb_multigrid(const MbMesh& m, const MbArrays<T>& a, const int* blocks, int nblocks, int levels);

}  // namespace nsb
