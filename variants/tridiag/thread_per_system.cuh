// What the one-thread-per-system variants share (tridiag/<layout>/thomas_thread): the call as a kernel
// argument and the kernels, a thread a system running the family's formulas (tridiag/formulas.hpp).
// Coalescing depends on the layout alone: interleaved systems give each warp one run of 32 values a
// row; contiguous systems give it 32 runs n apart (the baseline the block-per-system variants beat).
// c' goes to the work array, so a solve moves 9 words an unknown against the model's 5.
#pragma once

#include <cuda_runtime.h>

#include <vector>

#include "common/traversals.cuh"
#include "registry.hpp"
#include "tridiag/stage_call.hpp"

namespace nsb {

// TridiagCall without its tuning (a kernel argument must be trivially copyable).
template <class T>
struct TridiagArgs {
  TridiagLayout l;
  const T* __restrict__ a;
  const T* __restrict__ b;
  const T* __restrict__ c;
  T* __restrict__ x;
  T* __restrict__ cp;
  T* __restrict__ z;  // Sherman-Morrison column (cyclic)
};

template <class T>
TridiagArgs<T> tridiag_args(const TridiagCall<T>& c) {
  return {c.layout, c.a, c.b, c.c, c.x, c.work, c.work + c.layout.points()};
}

template <class T>
__global__ void thomas_thread_kernel(TridiagArgs<T> q) {
  const int s = int(blockIdx.x * blockDim.x + threadIdx.x);
  if (s >= q.l.batch) return;
  thomas_system(q.l, s, q.a, q.b, q.c, q.x, q.cp);
}

template <class T>
__global__ void cyclic_thread_kernel(TridiagArgs<T> q) {
  const int s = int(blockIdx.x * blockDim.x + threadIdx.x);
  if (s >= q.l.batch) return;
  cyclic_system(q.l, s, q.a, q.b, q.c, q.x, q.cp, q.z);
}

// A thread a system, tuning bN threads a block.
template <class T>
void run_thread_per_system(const TridiagCall<T>& c) {
  check_tridiag_call(c);
  const int threads = c.tuning.bx > 0 ? c.tuning.bx : 128;
  const unsigned blocks = ceil_div(c.layout.batch, threads);
  if (c.cyclic) {
    cyclic_thread_kernel<<<blocks, threads, 0, stream_of(c.exec)>>>(tridiag_args(c));
    NSB_LAUNCHED("cyclic_thread_kernel");
  } else {
    thomas_thread_kernel<<<blocks, threads, 0, stream_of(c.exec)>>>(tridiag_args(c));
    NSB_LAUNCHED("thomas_thread_kernel");
  }
}

inline std::vector<Tuning> thread_per_system_tunings() {
  return {parse_tuning("b128"), parse_tuning("b64"), parse_tuning("b256")};
}

// The registration every one-thread-per-system variant shares; `stage` picks the layout.
inline Variant thread_per_system_variant(const char* stage, const char* status) {
  const bool cyclic = std::string(stage) == "tridiag/cyclic";
  Variant v;
  v.stage = stage;
  v.name = "thomas_thread";
  v.backend = Backend::cuda;
  v.tags = {{"memory", "global"}, {"method", cyclic ? "sherman_morrison" : "thomas"}, {"mapping", "thread_per_system"}};
  v.tunings = thread_per_system_tunings();
  v.status = status;
  v.run_float = &run_thread_per_system<float>;
  v.run_double = &run_thread_per_system<double>;
  if (cyclic)
    v.kernels = {{"cyclic_thread_kernel<float>", (const void*)&cyclic_thread_kernel<float>, 4},
                 {"cyclic_thread_kernel<double>", (const void*)&cyclic_thread_kernel<double>, 8}};
  else
    v.kernels = {{"thomas_thread_kernel<float>", (const void*)&thomas_thread_kernel<float>, 4},
                 {"thomas_thread_kernel<double>", (const void*)&thomas_thread_kernel<double>, 8}};
  return v;
}

}  // namespace nsb
