// imle/ccd/line_thread_2d: one thread per line as the paper, in 2D blocks over the two line indices
// (the study's 1D-vs-2D CTA axis): a block covers bx neighbouring lines along the fastest index and by
// along the other, so its threads' rows of the factor and their cache lines are shared differently.
#include "imle/ccd/ccd_lines.cuh"

namespace nsb {
namespace {

template <class T>
void run(const CcdCall<T>& c) {
  launch_ccd_lines_2d(ccd_args(c), c.tuning, stream_of(c.exec), "imle/ccd/line_thread_2d");
}

const Registrar reg{Variant{
    .stage = "imle/ccd",
    .name = "line_thread_2d",
    .backend = Backend::cuda,
    .tags = {{"memory", "global"}, {"cta", "2d"}, {"traversal", "thread_per_line"}, {"y_kept", "global"}},
    .tunings = tunings_2d({{32, 4}, {16, 8}, {64, 2}, {32, 8}}, 0),
    .status = "study axis: 2D blocks over the lines",
    .run_float = &run<float>,
    .run_double = &run<double>,
    .kernels = {{"ccd_line_2d_kernel<float>", (const void*)&ccd_line_2d_kernel<float, CcdLines>, 4},
                {"ccd_line_2d_kernel<double>", (const void*)&ccd_line_2d_kernel<double, CcdLines>, 8}},
}};

}  // namespace
}  // namespace nsb
