// wave/step/shared_tile: the thesis's kernel (Sec. 3.1.3, Fig. 3.3). A block of bx x by threads copies
// its tile of u with the ring of neighbours around it, (bx + 2) x (by + 2) values, into shared memory,
// waits for the whole block, and computes its points from there; u_prev is read once from global memory.
#include "wave/step/plane.cuh"

namespace nsb {
namespace {

// u seen from one point of the tile (row: the tile's width).
template <class T>
struct TileAt {
  const T* c;
  int row;
  __device__ T operator()(int di, int, int dk) const { return c[di + dk * row]; }
};

template <class T>
__global__ void shared_tile_kernel(WaveArgs<T> a) {
  extern __shared__ unsigned char tile_bytes[];
  T* tile = reinterpret_cast<T*>(tile_bytes);
  const int width = blockDim.x + 2, height = blockDim.y + 2;
  const int i0 = int(blockIdx.x * blockDim.x);                 // padded column of the tile's west ring
  const int k0 = a.k_begin - 1 + int(blockIdx.y * blockDim.y);  // padded row of its south ring
  for (int b = threadIdx.y; b < height; b += blockDim.y)
    for (int c = threadIdx.x; c < width; c += blockDim.x)
      if (i0 + c <= a.g.nx + 1 && k0 + b <= a.k_end)  // no point inside needs what lies beyond
        tile[b * width + c] = read_only(a.u + wave_node(a.g, i0 + c, k0 + b));
  __syncthreads();
  int i, k;
  if (!plane_point(a, i, k)) return;
  const std::size_t n = wave_node(a.g, i, k);
  const TileAt<T> u{tile + (threadIdx.y + 1) * width + threadIdx.x + 1, width};
  a.u_next[n] = wave_point(u, read_only(a.u_prev + n), a.rho2);
}

template <class T>
void run(const WaveCall<T>& c) {
  const PlaneBlocks b = plane_blocks(c, "wave/step/shared_tile");
  if (b.empty()) return;
  const std::size_t bytes = std::size_t(b.block.x + 2) * (b.block.y + 2) * sizeof(T);
  shared_tile_kernel<<<b.grid, b.block, bytes, stream_of(c.exec)>>>(wave_args(c));
  NSB_LAUNCHED("shared_tile_kernel");
}

const Registrar reg{Variant{
    .stage = "wave/step",
    .name = "shared_tile",
    .backend = Backend::cuda,
    .tags = {{"memory", "shared"}, {"cta", "2d"}, {"traversal", "one_point"}},
    .tunings = wave_block_shapes(),
    .status = "thesis baseline (16 x 16 tiles)",
    .run_float = &run<float>,
    .run_double = &run<double>,
    .kernels = {{"shared_tile_kernel<float>", (const void*)&shared_tile_kernel<float>, 4},
                {"shared_tile_kernel<double>", (const void*)&shared_tile_kernel<double>, 8}},
}};

}  // namespace
}  // namespace nsb
