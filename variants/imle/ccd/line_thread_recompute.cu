// imle/ccd/line_thread_recompute: one thread per line, nothing of the forward sweep kept but y entering
// each chunk of 16 cells (2 words a chunk, in shared memory); the backward sweep walks the chunks from
// the last, reloads each one's phi and recomputes its y into registers (ccd_solve_line_recompute,
// harness/solvers/imle/ccd_chunked.hpp). Traffic: phi read twice, d1 and d2 written once (4 words a cell;
// 3 where the second read hits L2, as it can for a line's last chunks, reread right after their first
// read), and the forward arithmetic twice. Against line_thread_shared_y it keeps every line of the grid
// in flight at once (40401 at 201^3: ~306 an SM; 175 registers a thread in double allow 352) where that
// one fits ~70 an SM, and its shared memory (2 n / 16 words a line) limits the line length far less.
#include "imle/ccd/chunked_lines.cuh"

namespace nsb {
namespace {

template <class T, class Map>
__global__ void ccd_recompute_kernel(CcdArgs<T, Map> a) {
  std::size_t b = 0;
  if (!ccd_block_line(a.lines, b)) return;
  ccd_solve_line_recompute(a.phi + b, a.d1 + b, a.d2 + b, a.lines.stride, a.lines.n, a.bc, a.factor, a.h,
                           ccd_thread_store<T>(), int(blockDim.x));
}

template <class T>
void run(const CcdCall<T>& c) {
  const CcdArgs<T, CcdLines> a = ccd_args(c);
  launch_ccd_chunked(&ccd_recompute_kernel<T, CcdLines>, a, c.tuning.bx, std::size_t(2) * ccd_chunks(a.lines.n),
                     stream_of(c.exec), "imle/ccd/line_thread_recompute", "ccd_recompute_kernel");
}

const Registrar reg{Variant{
    .stage = "imle/ccd",
    .name = "line_thread_recompute",
    .backend = Backend::cuda,
    .tags = {{"memory", "register"}, {"cta", "1d"}, {"traversal", "thread_per_line"}, {"y_kept", "recomputed"}},
    .tunings = {parse_tuning("bx64"), parse_tuning("bx32"), parse_tuning("bx128")},
    .status = "study axis (issue 22): the forward sweep recomputed chunk by chunk from checkpoints, phi in chunks of "
              "16 cells (4 words a cell of traffic at most, every line in flight)",
    .run_float = &run<float>,
    .run_double = &run<double>,
    .kernels = {{"ccd_recompute_kernel<float>", (const void*)&ccd_recompute_kernel<float, CcdLines>, 4},
                {"ccd_recompute_kernel<double>", (const void*)&ccd_recompute_kernel<double, CcdLines>, 8}},
}};

}  // namespace
}  // namespace nsb
