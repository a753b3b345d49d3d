// streamvort/stream/global_2d_block_atomic: the regular method (2D block, every value from global memory) with the
// residual's maximum formed per block in shared memory and one atomicMax a block, instead of one a warp.
// Hypothesis under test: the regular sweep's one atomicMax per warp (8 per 16x16 block, all on one address)
// is what holds the stream sweep at 18.8% of the copy bandwidth at 4096^2; if so this variant is faster
// than global_2d by about the atomics' share, if not the two run alike and the limit is elsewhere.
#include "grid2d/stencil2d.cuh"

namespace nsb {
namespace sv {
namespace {

const Registrar reg{Variant{
    .stage = "streamvort/stream",
    .name = "global_2d_block_atomic",
    .backend = Backend::cuda,
    .tags = {{"memory", "global"}, {"cta", "2d"}, {"reduce", "block_atomic"}, {"method", "ablation"}},
    .tunings = regular_shapes(),
    .status = "ablation 4 on the regular method: one atomicMax a block instead of one a warp",
    .run_float = &run<Traversal::global_2d, BlockAtomic, StreamCall<float>>,
    .run_double = &run<Traversal::global_2d, BlockAtomic, StreamCall<double>>,
    .kernels = kernels_of<Traversal::global_2d, BlockAtomic, StreamOp>(),
}};

}  // namespace
}  // namespace sv
}  // namespace nsb
