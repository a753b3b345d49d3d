// imle/ccd/transposed: lines along x solved on a transposed copy (the notes' "transpose per direction"):
// phi's planes are transposed (x <-> y) into scratch through 32 x 32 shared-memory tiles, so that an
// x-line's cells lie a row apart and neighbouring lines are neighbouring words; one thread per line
// solves there coalesced (2D blocks), and d1, d2 are transposed back (interior cells only). Lines along
// y and z are coalesced as they are and run directly, as line_thread_2d. Hypothesis: the x direction,
// the paper's uncoalesced one, costs two extra passes over memory instead of 32 sectors a warp access.
#include "imle/ccd/ccd_lines.cuh"

namespace nsb {
namespace {

// x-lines of a plane-transposed copy: cell (i, j, k) at j + NY (i + NX k).
struct TransposedXLines {
  int NX, NY, k_begin;
  int n;
  std::ptrdiff_t stride;
  int count1, count2;
  NSB_HD std::size_t base(int l1, int l2) const {
    return std::size_t(1 + l1) + std::size_t(NY) * std::size_t(NX) * std::size_t(k_begin + l2);
  }
};

constexpr int kTile = 32, kTileRows = 8;

// dst[c + C r] = src[r + R c] in every plane k_begin + blockIdx.z, for r in [r0, r1), c in [c0, c1).
template <class T>
__global__ void transpose_planes_kernel(const T* __restrict__ src, T* __restrict__ dst, int R, int C, std::size_t plane,
                                        int k_begin, int r0, int r1, int c0, int c1) {
  __shared__ T tile[kTile][kTile + 1];
  const std::size_t off = plane * std::size_t(k_begin + int(blockIdx.z));
  const int r = r0 + int(blockIdx.x) * kTile + int(threadIdx.x);
  for (int dy = int(threadIdx.y); dy < kTile; dy += kTileRows) {
    const int c = c0 + int(blockIdx.y) * kTile + dy;
    if (r < r1 && c < c1) tile[dy][threadIdx.x] = src[off + std::size_t(r) + std::size_t(R) * std::size_t(c)];
  }
  __syncthreads();
  const int c = c0 + int(blockIdx.y) * kTile + int(threadIdx.x);
  for (int dy = int(threadIdx.y); dy < kTile; dy += kTileRows) {
    const int rr = r0 + int(blockIdx.x) * kTile + dy;
    if (rr < r1 && c < c1) dst[off + std::size_t(c) + std::size_t(C) * std::size_t(rr)] = tile[threadIdx.x][dy];
  }
}

template <class T>
void transpose_planes(const T* src, T* dst, int R, int C, const Grid& g, ZRange zr, int r0, int r1, int c0, int c1,
                      cudaStream_t s) {
  const dim3 grid(ceil_div(r1 - r0, kTile), ceil_div(c1 - c0, kTile), unsigned(zr.levels()));
  transpose_planes_kernel<<<grid, dim3(kTile, kTileRows), 0, s>>>(src, dst, R, C, std::size_t(g.sz()), zr.k_begin, r0, r1,
                                                                  c0, c1);
  NSB_LAUNCHED("transpose_planes_kernel");
}

template <class T>
void run(const CcdCall<T>& c) {
  const cudaStream_t s = stream_of(c.exec);
  if (c.axis != 0) return launch_ccd_lines_2d(ccd_args(c), c.tuning, s, "imle/ccd/transposed");
  const Grid& g = c.grid;
  if (c.zr.levels() <= 0 || g.nx == 0 || g.ny == 0) return;
  if (!c.scratch[0] || !c.scratch[1] || !c.scratch[2])
    throw std::runtime_error("imle/ccd/transposed needs the call's three scratch arrays");
  // phi (every i, ghosts included, rows j of the interior) -> scratch[0] as (j, i).
  transpose_planes(c.phi, c.scratch[0], g.NX(), g.NY(), g, c.zr, 0, g.NX(), 1, g.ny + 1, s);
  const TransposedXLines lines{g.NX(), g.NY(), c.zr.k_begin, g.nx, g.NY(), g.ny, c.zr.levels()};
  const CcdArgs<T, TransposedXLines> a{lines, c.bc, c.scratch[0], c.scratch[1], c.scratch[2], c.factor, c.h};
  launch_ccd_lines_2d(a, c.tuning, s, "imle/ccd/transposed");
  // scratch[1], scratch[2] as (j, i) -> d1, d2 (interior cells only: their ghosts stay).
  transpose_planes(c.scratch[1], c.d1, g.NY(), g.NX(), g, c.zr, 1, g.ny + 1, 1, g.nx + 1, s);
  transpose_planes(c.scratch[2], c.d2, g.NY(), g.NX(), g, c.zr, 1, g.ny + 1, 1, g.nx + 1, s);
}

const Registrar reg{Variant{
    .stage = "imle/ccd",
    .name = "transposed",
    .backend = Backend::cuda,
    .tags = {{"memory", "shared"}, {"cta", "2d"}, {"traversal", "transposed"}, {"y_kept", "global"}},
    .tunings = tunings_2d({{32, 4}, {64, 2}, {128, 1}}, 0),
    .status = "study axis: x lines through a transposed copy (coalesced), y and z lines as line_thread_2d",
    .run_float = &run<float>,
    .run_double = &run<double>,
    .kernels = {{"ccd_line_2d_kernel<float, TransposedXLines>", (const void*)&ccd_line_2d_kernel<float, TransposedXLines>, 4},
                {"ccd_line_2d_kernel<double, TransposedXLines>", (const void*)&ccd_line_2d_kernel<double, TransposedXLines>, 8},
                {"ccd_line_2d_kernel<float>", (const void*)&ccd_line_2d_kernel<float, CcdLines>, 4},
                {"ccd_line_2d_kernel<double>", (const void*)&ccd_line_2d_kernel<double, CcdLines>, 8},
                {"transpose_planes_kernel<float>", (const void*)&transpose_planes_kernel<float>, 4},
                {"transpose_planes_kernel<double>", (const void*)&transpose_planes_kernel<double>, 8}},
}};

}  // namespace
}  // namespace nsb
