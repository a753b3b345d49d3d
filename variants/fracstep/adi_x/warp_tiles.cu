// fracstep/adi_x/warp_tiles: a warp solves 32 x lines together, 32 points of each at a time. The x lines
// are the rows of the array, so a thread walking its own line (thread_per_line) reads addresses a row
// apart from its neighbours', and with only ny nz lines (0.18 waves at 1024x256x64, Nsight Compute:
// results/gpu-checks/nvidia-h100-80gb-hbm3-x1/checks_e9ef65f/ncu_adix.log.gz) each thread waits on one
// uncoalesced load after another. Here each 32-point chunk of the warp's 32 lines goes through a shared
// tile: loaded and stored a line's chunk at a time (32 consecutive values: coalesced, 32 independent loads
// in flight a warp), swept by lane l along line l in shared memory. Three passes over the chunks (forward
// d -> d', back substitution, the periodic rank-one correction), each the shared line formulas
// (formulas.hpp: adi_forward, adi_back, adi_cyclic_correct); 6 words of traffic an unknown where cyclic.
#include "fracstep/fracstep_kernels.cuh"

namespace nsb {
namespace {

constexpr int kLanes = 32;
constexpr int kTileRow = kLanes + 1;  // one padding word: lane l reading row l column c hits bank (l + c) % 32
constexpr int kLoadsInFlight = 16;    // a warp's outstanding loads of a chunk (registers: 16 values a thread)

// The warp's tile and its lines: rows [line0, line0 + lines) of the x sweep, component comp.
template <class T>
struct WarpTile {
  T* tile;  // kLanes rows of kTileRow
  T* x;     // the component's field
  const Grid* g;
  int line0, lines, lane;

  __device__ T* line(int l) const { return x + adi_line_start(*g, 0, line0 + l); }
  __device__ T* row(int l) const { return tile + l * kTileRow; }
  // Chunk [j0, j1) of every line into the tile and back: a line's chunk is one coalesced access. The
  // loads go kLoadsInFlight lines at a time into registers before any is stored to the tile: a loop that
  // stored each load before issuing the next kept one load a warp in flight, and with only 3 ny nz / 32
  // warps (a y-slab rank: 11.6 an SM at 4096x128x128) the sweep waited on memory latency, not bandwidth.
  __device__ void load(int j0, int j1) const {
    const bool in = j0 + lane < j1;
    for (int l0 = 0; l0 < lines; l0 += kLoadsInFlight) {
      T v[kLoadsInFlight];
#pragma unroll
      for (int b = 0; b < kLoadsInFlight; ++b)
        if (in && l0 + b < lines) v[b] = line(l0 + b)[j0 + lane];
#pragma unroll
      for (int b = 0; b < kLoadsInFlight; ++b)
        if (in && l0 + b < lines) row(l0 + b)[lane] = v[b];
    }
    __syncwarp();
  }
  __device__ void store(int j0, int j1) const {
    __syncwarp();
    for (int l = 0; l < lines; ++l)
      if (j0 + lane < j1) line(l)[j0 + lane] = row(l)[lane];
    __syncwarp();
  }
};

template <class T>
__global__ void adi_x_warp_tiles_kernel(FracstepArgs<T> a) {
  extern __shared__ unsigned char shared_bytes[];
  const int warp = int(threadIdx.x) / kLanes, lane = int(threadIdx.x) % kLanes, comp = int(blockIdx.y);
  const AdiLines lines = adi_lines(a.g, 0);
  const int line0 = (int(blockIdx.x) * int(blockDim.x / kLanes) + warp) * kLanes;
  if (line0 >= lines.count) return;  // the whole warp
  const WarpTile<T> w{reinterpret_cast<T*>(shared_bytes) + warp * kLanes * kTileRow, a.dvel[comp], &a.g, line0,
                      min(kLanes, lines.count - line0), lane};
  const AdiTable<T>& t = a.adi[comp];
  const bool mine = lane < w.lines;
  const int n = t.n, chunks = (n + kLanes - 1) / kLanes;

  ThomasRow<T> row{T(0), T(0)};
  for (int c = 0; c < chunks; ++c) {
    const int j0 = c * kLanes, j1 = min(n, j0 + kLanes);
    w.load(j0, j1);
    if (mine) row = adi_forward(t, w.row(lane), 1, j0, j1, row);
    w.store(j0, j1);
  }
  const T last = row.dp;  // x_{n-1} = d'_{n-1}
  T next = last;
  for (int c = chunks - 1; c >= 0; --c) {
    const int j0 = c * kLanes, j1 = min(n, j0 + kLanes);
    w.load(j0, j1);
    if (mine) next = adi_back(t, w.row(lane), 1, j0, c == chunks - 1 ? j1 - 1 : j1, next);
    w.store(j0, j1);
  }
  if (!t.cyclic) return;
  const T f = adi_cyclic_factor(t, next, last);  // next: x_0
  for (int c = 0; c < chunks; ++c) {
    const int j0 = c * kLanes, j1 = min(n, j0 + kLanes);
    w.load(j0, j1);
    if (mine) adi_cyclic_correct(t, w.row(lane), 1, j0, j1, f);
    w.store(j0, j1);
  }
}

template <class T>
void run_adi_x_warp_tiles(const FracstepCall<T>& c) {
  const int threads = c.tuning.bx > 0 ? c.tuning.bx : 128;
  if (threads % kLanes != 0) throw std::runtime_error("fracstep/adi_x/warp_tiles: the block must be whole warps");
  const int warps = threads / kLanes;
  const int warp_count = ceil_div(adi_lines(c.grid, 0).count, kLanes);
  const std::size_t shared = std::size_t(warps) * kLanes * kTileRow * sizeof(T);
  adi_x_warp_tiles_kernel<T><<<dim3(ceil_div(warp_count, warps), 3), threads, shared, stream_of(c.exec)>>>(
      fracstep_args(c, 0));
  NSB_LAUNCHED("adi_x_warp_tiles_kernel");
}

Variant warp_tiles_variant() {
  Variant v;
  v.stage = "fracstep/adi_x";
  v.name = "warp_tiles";
  v.backend = Backend::cuda;
  v.tags = {{"memory", "shared"}, {"mapping", "warp_per_32_lines"}};
  v.tunings = {parse_tuning("b128"), parse_tuning("b64"), parse_tuning("b32")};  // <= 33.8 KB of tiles in double
  v.status = "a warp 32 x lines through shared 32x32 tiles: coalesced chunks (the fix of thread_per_line's "
             "uncoalesced, latency-bound walk)";
  v.run_float = &run_adi_x_warp_tiles<float>;
  v.run_double = &run_adi_x_warp_tiles<double>;
  v.kernels = {{"adi_x_warp_tiles_kernel<float>", (const void*)&adi_x_warp_tiles_kernel<float>, 4},
               {"adi_x_warp_tiles_kernel<double>", (const void*)&adi_x_warp_tiles_kernel<double>, 8}};
  return v;
}

const Registrar reg{warp_tiles_variant()};

}  // namespace
}  // namespace nsb
