// imle/mls/fused_register: build and solve fused in one thread, the system in registers (55 + 30 words:
// the packed symmetric matrix and three right-hand sides; mls_cell, as the CPU reference). What the
// paper rejected for its register limits (Sec. 3.3); on sm_90 the 85 doubles fit the 255 registers a
// thread may hold, at a low occupancy the arithmetic-bound stage can afford. Hypothesis: no global
// traffic for the systems, so the stage runs at the FP64 rate instead of the memory system's.
#include "imle/mls/mls_cells.cuh"

namespace nsb {
namespace {

template <class T>
__global__ void __launch_bounds__(128) fused_register_kernel(MlsArgs<T> a) {
  int i, j, k;
  if (!mls_target(a, a.k_begin, a.k_end, i, j, k)) return;
  mls_cell(a, i, j, k);
}

template <class T>
void run(const MlsCall<T>& c) {
  check_block(c.tuning.bx * c.tuning.by, "imle/mls/fused_register");
  if (c.tuning.bx * c.tuning.by > 128) throw std::runtime_error("imle/mls/fused_register: blocks of at most 128 threads");
  if (c.zr.levels() <= 0) return;
  fused_register_kernel<<<mls_blocks(c.grid, c.zr.levels(), c.tuning), dim3(c.tuning.bx, c.tuning.by), 0,
                          stream_of(c.exec)>>>(mls_args(c));
  NSB_LAUNCHED("fused_register_kernel");
}

const Registrar reg{Variant{
    .stage = "imle/mls",
    .name = "fused_register",
    .backend = Backend::cuda,
    .tags = {{"memory", "register"}, {"cta", "2d"}, {"phases", "fused"}, {"index", "int64"}},
    .tunings = mls_block_shapes(),
    .status = "study axis: build + solve fused in registers (the paper's rejected alternative)",
    .run_float = &run<float>,
    .run_double = &run<double>,
    .kernels = {{"fused_register_kernel<float>", (const void*)&fused_register_kernel<float>, 4},
                {"fused_register_kernel<double>", (const void*)&fused_register_kernel<double>, 8}},
}};

}  // namespace
}  // namespace nsb
