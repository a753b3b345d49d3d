// What the GPU variants of ogrid/sweep and streamvort/{vorticity,stream} share: the paper's two ways
// of mapping threads to nodes (Gohari et al. 2012, Sec. 3; notes Sec. 2.2-2.3) and the ablations of
// notes Sec. 6.1, each a kernel template over the stage's op (stage_call.hpp) and a residual-reduction
// policy. A variant is one of these instantiated and registered (~30 lines).
//
// Traversals (where the 9-point neighbours of the op's staged fields come from):
//   global_2d      "regular": a 2D block of bx x by threads, one node each, every value from global memory.
//   global_1d      module 1 alone: a 1D block of B threads over the flattened node index
//                  m = (j - 1) nx + (i - 1), every value from global memory.
//   shared_1d      "present": the 1D block stages rows j - 1, j, j + 1 of each staged field for its B
//                  nodes (plus one value each side) in shared memory, coalesced row segments; a node at a
//                  row end (i = 1 or nx) reads its xi-neighbour across the end from global memory (the
//                  next slot of the block is the next row's node). Blocks may straddle rows, as the
//                  paper's flattening does.
//   shared_tile_2d module 2 alone: a 2D block stages its (bx + 2) x (by + 2) tile of each staged field.
// Reductions of the residual (its maximum; the same bits whatever the order):
//   WarpAtomic   a warp's maximum by shuffles, one atomicMax a warp (no shared memory: the "regular" one);
//   BlockAtomic  a block's maximum by a shared-memory tree, one atomicMax a block;
//   BlockBuffer  the block's maximum to a per-block buffer, a second kernel reduces the buffer;
//   LastBlock    the paper's "memory fence": per-block buffer, __threadfence, a ticket; the last block
//                to finish reduces the buffer (CUDA SDK threadFenceReduction), no second kernel.
// The atomic reductions clear the result before the kernel (a memset on the stream).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "common/traversals.cuh"  // stream_of, ceil_div, check_block, NSB_LAUNCHED
#include "grid2d/stage_call.hpp"

namespace nsb {
namespace sv {

// ---- residual reductions -------------------------------------------------------------------------

// Where a kernel's residual goes: *out, via per-block partials in the call's scratch where needed.
template <class T>
struct ReduceTarget {
  T* out;
  T* partial;
};

__device__ inline void atomic_max_abs(float* a, float v) {
  atomicMax(reinterpret_cast<unsigned int*>(a), __float_as_uint(fabsf(v)));  // non-negative floats order as their bits
}
__device__ inline void atomic_max_abs(double* a, double v) {
  atomicMax(reinterpret_cast<unsigned long long*>(a), static_cast<unsigned long long>(__double_as_longlong(fabs(v))));
}

template <class T>
__device__ inline T warp_max(T v) {
  for (int offset = 16; offset > 0; offset >>= 1) v = sv_max(v, __shfl_down_sync(0xffffffffu, v, offset));
  return v;
}

// The maximum of the block's values, in thread 0 (s: blockDim values of shared memory; power-of-2 block).
template <class T>
__device__ inline T block_max(T v, T* s, int tid, int threads) {
  s[tid] = v;
  __syncthreads();
  for (int half = threads / 2; half > 0; half >>= 1) {
    if (tid < half) s[tid] = sv_max(s[tid], s[tid + half]);
    __syncthreads();
  }
  return s[0];
}

struct NoReduce {
  static constexpr bool kShared = false;
  template <class T>
  static void prepare(const ReduceTarget<T>&, cudaStream_t) {}
  template <class T>
  __device__ static void finish(T, const ReduceTarget<T>&, int, int, T*) {}
  template <class T>
  static void after(const ReduceTarget<T>&, unsigned, cudaStream_t) {}
};

template <class T>
void clear_result(const ReduceTarget<T>& r, cudaStream_t s) {
  NSB_CUDA(cudaMemsetAsync(r.out, 0, sizeof(T), s));
}

struct WarpAtomic {
  static constexpr bool kShared = false;
  template <class T>
  static void prepare(const ReduceTarget<T>& r, cudaStream_t s) { clear_result(r, s); }
  template <class T>
  __device__ static void finish(T v, const ReduceTarget<T>& r, int tid, int, T*) {
    v = warp_max(v);
    if ((tid & 31) == 0) atomic_max_abs(r.out, v);
  }
  template <class T>
  static void after(const ReduceTarget<T>&, unsigned, cudaStream_t) {}
};

struct BlockAtomic {
  static constexpr bool kShared = true;
  template <class T>
  static void prepare(const ReduceTarget<T>& r, cudaStream_t s) { clear_result(r, s); }
  template <class T>
  __device__ static void finish(T v, const ReduceTarget<T>& r, int tid, int threads, T* s) {
    const T m = block_max(v, s, tid, threads);
    if (tid == 0) atomic_max_abs(r.out, m);
  }
  template <class T>
  static void after(const ReduceTarget<T>&, unsigned, cudaStream_t) {}
};

// One block strides over the partials and writes their maximum.
template <class T>
__global__ void reduce_partials_kernel(const T* partial, unsigned blocks, T* out) {
  __shared__ T s[1024];
  T m = T(0);
  for (unsigned k = threadIdx.x; k < blocks; k += blockDim.x) m = sv_max(m, partial[k]);
  m = block_max(m, s, int(threadIdx.x), int(blockDim.x));
  if (threadIdx.x == 0) *out = m;
}

struct BlockBuffer {
  static constexpr bool kShared = true;
  template <class T>
  static void prepare(const ReduceTarget<T>&, cudaStream_t) {}
  template <class T>
  __device__ static void finish(T v, const ReduceTarget<T>& r, int tid, int threads, T* s) {
    const T m = block_max(v, s, tid, threads);
    if (tid == 0) r.partial[blockIdx.x + gridDim.x * blockIdx.y] = m;
  }
  template <class T>
  static void after(const ReduceTarget<T>& r, unsigned blocks, cudaStream_t s) {
    reduce_partials_kernel<T><<<1, 1024, 0, s>>>(r.partial, blocks, r.out);
    NSB_LAUNCHED("reduce_partials_kernel");
  }
};

// The last-block ticket counter: zero at module load, put back to zero by each call's last block. One
// per translation unit (each variant's file); calls of one variant follow each other on one stream.
namespace {
__device__ unsigned int retired_blocks = 0;
}

struct LastBlock {
  static constexpr bool kShared = true;
  template <class T>
  static void prepare(const ReduceTarget<T>&, cudaStream_t) {}
  template <class T>
  __device__ static void finish(T v, const ReduceTarget<T>& r, int tid, int threads, T* s) {
    __shared__ bool last;
    const T m = block_max(v, s, tid, threads);
    const unsigned blocks = gridDim.x * gridDim.y;
    if (tid == 0) {
      r.partial[blockIdx.x + gridDim.x * blockIdx.y] = m;
      __threadfence();  // the partial is visible to every block before the ticket says so
      last = atomicInc(&retired_blocks, blocks - 1) == blocks - 1;  // wraps to 0 for the next call
    }
    __syncthreads();
    if (!last) return;
    T a = T(0);
    const volatile T* partial = r.partial;
    for (unsigned k = unsigned(tid); k < blocks; k += unsigned(threads)) a = sv_max(a, T(partial[k]));
    a = block_max(a, s, tid, threads);
    if (tid == 0) *r.out = a;
  }
  template <class T>
  static void after(const ReduceTarget<T>&, unsigned, cudaStream_t) {}
};

// ---- stencils ------------------------------------------------------------------------------------

// A staged field in shared memory, rows j - 1, j, j + 1 of the block's nodes (`width` slots each; p
// points at the node's slot of the middle row), with the xi-neighbours across a row end from global.
template <class T>
struct RowSlots {
  const T* p;
  int width;
  const T* g;  // the node in global memory
  std::ptrdiff_t row;
  bool west_end, east_end;
  __device__ T operator()(int di, int dj) const {
    if ((di < 0 && west_end) || (di > 0 && east_end)) return g[di + dj * row];
    return p[di + dj * width];
  }
};
template <class T, int K>
struct RowStencil {
  RowSlots<T> f[K];
  __device__ const RowSlots<T>& at(int k) const { return f[k]; }
};

// A staged field in a shared tile (p: the node's slot, `width` slots a row).
template <class T>
struct TileSlots {
  const T* p;
  int width;
  __device__ T operator()(int di, int dj) const { return p[di + dj * width]; }
};
template <class T, int K>
struct TileStencil {
  TileSlots<T> f[K];
  __device__ const TileSlots<T>& at(int k) const { return f[k]; }
};

// ---- kernels -------------------------------------------------------------------------------------

template <class Op, class Reduce>
__global__ void global_2d_kernel(Op op, ReduceTarget<typename Op::value_type> r) {
  using T = typename Op::value_type;
  extern __shared__ __align__(16) unsigned char smem[];
  const int i = 1 + int(blockIdx.x * blockDim.x + threadIdx.x);
  const int j = 1 + int(blockIdx.y * blockDim.y + threadIdx.y);
  T res = T(0);
  if (i <= op.g.nx && j <= op.g.ny) {
    const std::size_t n = sv_node(op.g, i, j);
    res = op(i, j, n, global_stencil(op, n));
  }
  Reduce::finish(res, r, int(threadIdx.x + blockDim.x * threadIdx.y), int(blockDim.x * blockDim.y),
                 reinterpret_cast<T*>(smem));
}

template <class Op, class Reduce>
__global__ void global_1d_kernel(Op op, ReduceTarget<typename Op::value_type> r) {
  using T = typename Op::value_type;
  extern __shared__ __align__(16) unsigned char smem[];
  const long long m = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  T res = T(0);
  if (m < (long long)op.g.nx * op.g.ny) {
    const int i = 1 + int(m % op.g.nx), j = 1 + int(m / op.g.nx);
    const std::size_t n = sv_node(op.g, i, j);
    res = op(i, j, n, global_stencil(op, n));
  }
  Reduce::finish(res, r, int(threadIdx.x), int(blockDim.x), reinterpret_cast<T*>(smem));
}

template <class Op, class Reduce>
__global__ void shared_1d_kernel(Op op, ReduceTarget<typename Op::value_type> r) {
  using T = typename Op::value_type;
  constexpr int K = Op::kStaged;
  extern __shared__ __align__(16) unsigned char smem[];
  T* rows = reinterpret_cast<T*>(smem);  // [K][3][B + 2]
  const int t = int(threadIdx.x), b = int(blockDim.x), width = b + 2;
  const long long total = (long long)op.g.nx * op.g.ny;
  const long long m0 = (long long)blockIdx.x * b, m = m0 + t;
  const int last = int(min((long long)b, total - m0)) - 1;  // the block's last node
  const bool active = m < total;
  const int i = active ? 1 + int(m % op.g.nx) : 1, j = active ? 1 + int(m / op.g.nx) : 1;
  const std::size_t n = sv_node(op.g, i, j);
  const std::ptrdiff_t row = op.g.sy();
  if (active)
    for (int k = 0; k < K; ++k)
      for (int dj = -1; dj <= 1; ++dj) {
        T* slots = rows + (k * 3 + dj + 1) * width;
        const T* f = op.staged(k) + n + dj * row;
        slots[t + 1] = f[0];
        if (t == 0) slots[0] = f[-1];
        if (t == last) slots[t + 2] = f[1];
      }
  __syncthreads();
  T res = T(0);
  if (active) {
    RowStencil<T, K> s;
    for (int k = 0; k < K; ++k)
      s.f[k] = RowSlots<T>{rows + (k * 3 + 1) * width + t + 1, width, op.staged(k) + n, row, i == 1, i == op.g.nx};
    res = op(i, j, n, s);
  }
  Reduce::finish(res, r, t, b, rows + K * 3 * width);
}

template <class Op, class Reduce>
__global__ void shared_tile_2d_kernel(Op op, ReduceTarget<typename Op::value_type> r) {
  using T = typename Op::value_type;
  constexpr int K = Op::kStaged;
  extern __shared__ __align__(16) unsigned char smem[];
  T* tiles = reinterpret_cast<T*>(smem);  // [K][by + 2][bx + 2]
  const int width = int(blockDim.x) + 2, height = int(blockDim.y) + 2;
  const int i0 = int(blockIdx.x * blockDim.x), j0 = int(blockIdx.y * blockDim.y);  // the tile's south-west ring node
  for (int k = 0; k < K; ++k)
    for (int b = int(threadIdx.y); b < height; b += int(blockDim.y))
      for (int c = int(threadIdx.x); c < width; c += int(blockDim.x))
        if (i0 + c <= op.g.nx + 1 && j0 + b <= op.g.ny + 1)  // no node inside needs what lies beyond
          tiles[(k * height + b) * width + c] = op.staged(k)[sv_node(op.g, i0 + c, j0 + b)];
  __syncthreads();
  const int tid = int(threadIdx.x + blockDim.x * threadIdx.y);
  const int i = i0 + 1 + int(threadIdx.x), j = j0 + 1 + int(threadIdx.y);
  T res = T(0);
  if (i <= op.g.nx && j <= op.g.ny) {
    TileStencil<T, K> s;
    for (int k = 0; k < K; ++k)
      s.f[k] = TileSlots<T>{tiles + (k * height + threadIdx.y + 1) * width + threadIdx.x + 1, width};
    res = op(i, j, sv_node(op.g, i, j), s);
  }
  Reduce::finish(res, r, tid, int(blockDim.x * blockDim.y), tiles + K * height * width);
}

// ---- launches ------------------------------------------------------------------------------------

enum class Traversal { global_2d, global_1d, shared_1d, shared_tile_2d };

// A launch with the tuning's shared-memory carve-out preference (co, % of the unified L1/shared memory), the
// Hopper form of the paper's cache configuration (Fermi's cudaFuncSetCacheConfig PreferL1: 16 KB shared, 48 KB
// L1; notes Sec. 2.1, 6.1). A launch attribute, not the function's: it binds this launch only (and a captured
// graph's node), so a tuning without one runs with the driver's choice whatever ran before.
template <class... P, class... A>
void launch_kernel(void (*kernel)(P...), dim3 grid, dim3 block, std::size_t bytes, cudaStream_t s, int carveout,
                   A... args) {
  if (carveout < 0) {
    kernel<<<grid, block, bytes, s>>>(args...);
    return;
  }
  cudaLaunchAttribute attr{};
  attr.id = cudaLaunchAttributePreferredSharedMemoryCarveout;
  attr.val.sharedMemCarveout = unsigned(carveout);
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = grid, cfg.blockDim = block, cfg.dynamicSmemBytes = bytes, cfg.stream = s;
  cfg.attrs = &attr, cfg.numAttrs = 1;
  NSB_CUDA(cudaLaunchKernelEx(&cfg, kernel, args...));
}

// The kernel of a traversal, typed (launch_kernel's argument; kernel_of below the same as a report key).
template <Traversal tr, class Reduce, class Op>
constexpr auto kernel_fn() {
  if constexpr (tr == Traversal::global_2d) return &global_2d_kernel<Op, Reduce>;
  if constexpr (tr == Traversal::global_1d) return &global_1d_kernel<Op, Reduce>;
  if constexpr (tr == Traversal::shared_1d) return &shared_1d_kernel<Op, Reduce>;
  if constexpr (tr == Traversal::shared_tile_2d) return &shared_tile_2d_kernel<Op, Reduce>;
}

template <class T>
ReduceTarget<T> reduce_target(T* out, const Exec& e) {
  return {out, static_cast<T*>(e.scratch)};
}

// One call of op with traversal `tr` and reduction Reduce into *out (null for NoReduce).
template <Traversal tr, class Reduce, class Op>
void launch(const Op& op, const Tuning& t, const Exec& e, typename Op::value_type* out, const char* variant) {
  using T = typename Op::value_type;
  constexpr int K = Op::kStaged;
  const bool two_d = tr == Traversal::global_2d || tr == Traversal::shared_tile_2d;
  const int threads = two_d ? t.bx * t.by : t.bx;
  check_block(threads, variant);
  if (Reduce::kShared && (threads & (threads - 1)))
    throw std::runtime_error(std::string(variant) + ": the shared-memory reduction needs a power-of-2 block");
  if (op.g.nx < 1 || op.g.ny < 1) return;
  const cudaStream_t s = stream_of(e);
  const ReduceTarget<T> r = reduce_target(out, e);
  const dim3 grid = two_d ? dim3(ceil_div(op.g.nx, t.bx), ceil_div(op.g.ny, t.by))
                          : dim3(ceil_div((long long)op.g.nx * op.g.ny, t.bx));
  const unsigned blocks = grid.x * grid.y;
  if constexpr (std::is_same_v<Reduce, BlockBuffer> || std::is_same_v<Reduce, LastBlock>)
    if (blocks * sizeof(T) > e.scratch_bytes)
      throw std::runtime_error(std::string(variant) + ": the per-block residuals do not fit the scratch");
  std::size_t bytes = Reduce::kShared ? std::size_t(threads) * sizeof(T) : 0;
  if (tr == Traversal::shared_1d) bytes += std::size_t(K) * 3 * (t.bx + 2) * sizeof(T);
  if (tr == Traversal::shared_tile_2d) bytes += std::size_t(K) * (t.bx + 2) * (t.by + 2) * sizeof(T);
  const dim3 block = two_d ? dim3(t.bx, t.by) : dim3(t.bx);
  Reduce::prepare(r, s);
  launch_kernel(kernel_fn<tr, Reduce, Op>(), grid, block, bytes, s, t.co, op, r);
  NSB_LAUNCHED(variant);
  Reduce::after(r, blocks, s);
}

// A variant's entry point: the call's op, launched with traversal tr and reduction Reduce.
template <class T>
GridSweepOp<T> op_of(const GridSweepCall<T>& c) { return GridSweepOp<T>::of(c); }
template <class T>
StreamOp<T> op_of(const StreamCall<T>& c) { return StreamOp<T>::of(c); }
template <class T>
VorticityOp<T> op_of(const VorticityCall<T>& c) { return VorticityOp<T>::of(c); }
template <class Call>
typename Call::value_type* residual_of(const Call& c) {
  if constexpr (requires { c.residual; }) return c.residual;
  else return nullptr;
}
constexpr const char* traversal_name(Traversal tr) {
  return tr == Traversal::global_2d ? "global_2d_kernel"
         : tr == Traversal::global_1d ? "global_1d_kernel"
         : tr == Traversal::shared_1d ? "shared_1d_kernel"
                                      : "shared_tile_2d_kernel";
}
template <Traversal tr, class Reduce, class Call>
void run(const Call& c) {
  if constexpr (requires { c.nu_eff; })  // vorticity's turbulent workload: nu_eff the third staged field
    if (c.nu_eff)
      return launch<tr, Reduce>(TurbulentVorticityOp<typename Call::value_type>::of(c), c.tuning, c.exec, nullptr,
                                traversal_name(tr));
  launch<tr, Reduce>(op_of(c), c.tuning, c.exec, residual_of(c), traversal_name(tr));
}

// The kernels a variant runs, for the registers / shared-memory report.
template <Traversal tr, class Reduce, class Op>
const void* kernel_of() {
  return (const void*)kernel_fn<tr, Reduce, Op>();
}
template <Traversal tr, class Reduce, template <class> class OpT>
std::vector<KernelRef> kernels_of() {
  const std::string name = traversal_name(tr);
  return {{name + "<float>", kernel_of<tr, Reduce, OpT<float>>(), 4},
          {name + "<double>", kernel_of<tr, Reduce, OpT<double>>(), 8}};
}

// The paper's block shapes of the regular method (notes Sec. 6.1): 16 x 16 first (the "naive" default),
// then the shapes narrower than a warp and the warp-wide rows (bx = 32, ablation 3).
inline std::vector<Tuning> regular_shapes() { return tunings_2d({{16, 16}, {16, 8}, {8, 8}, {32, 4}, {32, 8}}, 0); }
// The present method's 1D blocks.
inline std::vector<Tuning> present_sizes() { return {parse_tuning("b256"), parse_tuning("b128"), parse_tuning("b512")}; }
// The present variants' tunings with the carve-out axis (ablation, notes Sec. 6.1): B = 256 with most L1 (co0,
// the paper's PreferL1), an even split and most shared memory, beside the sizes without a preference.
inline std::vector<Tuning> present_carveouts() {
  std::vector<Tuning> t = present_sizes();
  for (const char* name : {"b256_co0", "b256_co50", "b256_co100"}) t.push_back(parse_tuning(name));
  return t;
}

}  // namespace sv
}  // namespace nsb
