// imle/ccd/line_thread_shared_y: one thread per line, the forward sweep's y kept in shared memory
// instead of d1, d2 in global memory, phi loaded 16 cells at a time (ccd_solve_line_shared_y,
// harness/solvers/imle/ccd_chunked.hpp). The paper's sweep moves 7 words a cell (phi; y written to d1,
// d2, reread, rewritten) and waits a memory latency a step; this one moves the model's 3 and its
// backward sweep loads nothing from global memory but the factor. The price: 2 n words of shared memory
// a line (3.2 KB at n = 201 in double), so at most ~70 lines an SM run at once (bx32: two blocks of
// 103 KB an SM), and lines longer than 227 KB / (2 bx sizeof(T)) cells are refused (a smaller bx takes them).
#include "imle/ccd/chunked_lines.cuh"

namespace nsb {
namespace {

template <class T, class Map>
__global__ void ccd_shared_y_kernel(CcdArgs<T, Map> a) {
  std::size_t b = 0;
  if (!ccd_block_line(a.lines, b)) return;
  ccd_solve_line_shared_y(a.phi + b, a.d1 + b, a.d2 + b, a.lines.stride, a.lines.n, a.bc, a.factor, a.h,
                          ccd_thread_store<T>(), int(blockDim.x));
}

template <class T>
void run(const CcdCall<T>& c) {
  const CcdArgs<T, CcdLines> a = ccd_args(c);
  launch_ccd_chunked(&ccd_shared_y_kernel<T, CcdLines>, a, c.tuning.bx, std::size_t(2) * a.lines.n, stream_of(c.exec),
                     "imle/ccd/line_thread_shared_y", "ccd_shared_y_kernel");
}

const Registrar reg{Variant{
    .stage = "imle/ccd",
    .name = "line_thread_shared_y",
    .backend = Backend::cuda,
    .tags = {{"memory", "shared"}, {"cta", "1d"}, {"traversal", "thread_per_line"}, {"y_kept", "shared"}},
    .tunings = {parse_tuning("bx32"), parse_tuning("bx16"), parse_tuning("bx64")},
    .status = "study axis (issue 22): the forward sweep's y in shared memory, phi in chunks of 16 cells (3 words a "
              "cell of traffic, the model's)",
    .run_float = &run<float>,
    .run_double = &run<double>,
    .kernels = {{"ccd_shared_y_kernel<float>", (const void*)&ccd_shared_y_kernel<float, CcdLines>, 4},
                {"ccd_shared_y_kernel<double>", (const void*)&ccd_shared_y_kernel<double, CcdLines>, 8}},
}};

}  // namespace
}  // namespace nsb
