// imle/ccd/line_thread_1d: the paper's kernel (Sec. 3.2): one thread per grid line, nc^2 threads a
// direction in flat 1D blocks, each building its right-hand side and running the block forward and
// back substitution serially in global memory. Lines along y and z are coalesced across a warp
// (neighbouring threads, neighbouring i); lines along x are not (threads a row apart).
#include "imle/ccd/ccd_lines.cuh"

namespace nsb {
namespace {

template <class T>
void run(const CcdCall<T>& c) {
  launch_ccd_lines_1d(ccd_args(c), c.tuning, stream_of(c.exec), "imle/ccd/line_thread_1d");
}

const Registrar reg{Variant{
    .stage = "imle/ccd",
    .name = "line_thread_1d",
    .backend = Backend::cuda,
    .tags = {{"memory", "global"}, {"cta", "1d"}, {"traversal", "thread_per_line"}, {"y_kept", "global"}},
    .tunings = {parse_tuning("bx128"), parse_tuning("bx64"), parse_tuning("bx256"), parse_tuning("bx32")},
    .status = "paper baseline (Liu 2019 Sec. 3.2: one thread per line)",
    .run_float = &run<float>,
    .run_double = &run<double>,
    .kernels = {{"ccd_line_1d_kernel<float>", (const void*)&ccd_line_1d_kernel<float, CcdLines>, 4},
                {"ccd_line_1d_kernel<double>", (const void*)&ccd_line_1d_kernel<double, CcdLines>, 8}},
}};

}  // namespace
}  // namespace nsb
