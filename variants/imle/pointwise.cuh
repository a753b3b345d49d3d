// The IMLE pointwise stages on the GPU: one thread a column of cells in 2D blocks over x-y walking sz
// z-levels (the shared zloop traversal, variants/common/traversals.cuh), each cell the shared formula
// (point_formulas.hpp). A variant file is this with its stage (variants/imle/<stage>/global_2d.cu).
#pragma once

#include "grid.hpp"  // before traversals.cuh, which uses Grid without including it
#include "common/traversals.cuh"
#include "imle/point_call.hpp"

namespace nsb {

template <ImlePoint S, class T>
struct ImlePointOp {
  ImlePointArgs<T> a;
  __device__ void operator()(int i, int j, int k, std::size_t n) const { imle_point<S>(a, i, j, k, n); }
};

template <ImlePoint S, class T>
void run_point_global_2d(const ImlePointCall<T>& c) {
  launch_zloop_2d(ImlePointOp<S, T>{point_args(c)}, c);
}

inline std::vector<Tuning> point_block_shapes() { return tunings_2d({{32, 4}, {64, 2}, {32, 8}, {128, 1}}, 4); }

}  // namespace nsb
