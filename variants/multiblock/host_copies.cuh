// How the CPU-side routines (ifsum: interface sums; bc: boundary conditions and ghost fill) of a GPU run
// get their data and give it back (Kemal et al. 2015 Sec. IV.C, Fig. 5):
//   whole_arrays   every field the routine touches copied whole, device to host and back (the naive way)
//   boundary_band  only the blocks' boundary bands (mesh.hpp: the edge rows for ifsum; ghosts, edges and
//                  the rows one in for bc), packed on the device by a gather kernel into one buffer, one
//                  copy each way, unpacked on the host into its arrays and back on the device by a
//                  scatter kernel (the paper: "copying only the boundary data into a host buffer")
// and the host memory of Sec. IV.D:
//   pageable       (the two above) synchronous copies from ordinary host memory, the paper's default
//   registered     whole arrays, the host arrays page-locked in place with cudaHostRegister (the paper's way:
//                  its arrays were Fortran's) on first use, async copies on the stream
//   pinned         the boundary band through a cudaMallocHost staging buffer, async copies; the copy back
//                  and the device unpack are left in flight (the next kernels follow on the stream)
// Not done: overlapping the copies with other CPU work (the paper's streams); here the host routine needs
// all of its data first. The routine itself is the CPU reference's, on the host copy.
#pragma once

#include "multiblock/boundary.hpp"
#include "multiblock/common.cuh"

namespace nsb {

template <class T>
__global__ void mb_pack_kernel(const T* field, const std::uint32_t* band, std::size_t count, T* out) {
  for (std::size_t m = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; m < count; m += std::size_t(gridDim.x) * blockDim.x)
    out[m] = field[band[m]];
}
template <class T>
__global__ void mb_unpack_kernel(T* field, const std::uint32_t* band, std::size_t count, const T* in) {
  for (std::size_t m = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; m < count; m += std::size_t(gridDim.x) * blockDim.x)
    field[band[m]] = in[m];
}

template <class T>
void mb_run_host_routine(MbStage s, const MbMesh& m, const MbArrays<T>& a) {
  if (s == MbStage::ifsum) mb_interface_sum(m, a);
  else mb_boundary_conditions(m, a);
}

enum class MbHostMemory { pageable, registered, pinned };

template <class T>
void mb_register_host_arrays(MbHostSide<T>& h, std::size_t bytes) {
  if (h.registration) return;
  auto arrays = std::make_shared<std::vector<void*>>();
  for (int f = 0; f < kMbScratch; ++f)
    if (h.arrays.f[f]) {
      NSB_CUDA(cudaHostRegister(h.arrays.f[f], bytes, cudaHostRegisterDefault));
      arrays->push_back(h.arrays.f[f]);
    }
  h.registration = std::shared_ptr<void>(arrays.get(), [arrays](void*) {
    for (void* p : *arrays) cudaHostUnregister(p);  // at teardown: nothing to report an error to
  });
}

template <class T>
T* mb_pinned_staging(MbHostSide<T>& h) {
  if (!h.staging_pinned) {
    void* p = nullptr;
    NSB_CUDA(cudaMallocHost(&p, h.staging_elems * sizeof(T)));
    h.pinned_owner = std::shared_ptr<void>(p, [](void* q) { cudaFreeHost(q); });
    h.staging_pinned = static_cast<T*>(p);
  }
  return h.staging_pinned;
}

template <MbStage S, class T>
void mb_whole_arrays(const MbCall<T>& c, MbHostSide<T>& h, const std::vector<int>& fields) {
  const std::size_t bytes = c.grid.padded_points() * sizeof(T);
  const cudaStream_t stream = stream_of(c.exec);
  for (int f : fields) NSB_CUDA(cudaMemcpyAsync(h.arrays.f[f], c.a.f[f], bytes, cudaMemcpyDeviceToHost, stream));
  NSB_CUDA(cudaStreamSynchronize(stream));
  mb_run_host_routine(S, *h.mesh, h.arrays);
  for (int f : fields) NSB_CUDA(cudaMemcpyAsync(c.a.f[f], h.arrays.f[f], bytes, cudaMemcpyHostToDevice, stream));
  NSB_CUDA(cudaStreamSynchronize(stream));  // the host arrays are the next call's
}

template <MbStage S, class T>
void mb_band(const MbCall<T>& c, MbHostSide<T>& h, const std::vector<int>& fields, T* staging, bool wait_at_end) {
  const std::vector<std::uint32_t>& band = S == MbStage::ifsum ? h.edge_band : h.bc_band;
  const std::uint32_t* band_device = S == MbStage::ifsum ? h.edge_band_device : h.bc_band_device;
  const std::size_t nb = band.size(), total = nb * fields.size();
  if (h.staging_elems < total) throw std::logic_error("multiblock host routine: staging buffer too small");
  const cudaStream_t stream = stream_of(c.exec);
  const unsigned blocks = std::max(1u, std::min(ceil_div((long long)nb, 256), 4096u));
  for (std::size_t f = 0; f < fields.size(); ++f) {
    mb_pack_kernel<<<blocks, 256, 0, stream>>>(c.a.f[fields[f]], band_device, nb, h.staging_device + f * nb);
    NSB_LAUNCHED("mb_pack_kernel");
  }
  NSB_CUDA(cudaMemcpyAsync(staging, h.staging_device, total * sizeof(T), cudaMemcpyDeviceToHost, stream));
  NSB_CUDA(cudaStreamSynchronize(stream));
  for (std::size_t f = 0; f < fields.size(); ++f)
    for (std::size_t k = 0; k < nb; ++k) h.arrays.f[fields[f]][band[k]] = staging[f * nb + k];
  mb_run_host_routine(S, *h.mesh, h.arrays);
  for (std::size_t f = 0; f < fields.size(); ++f)
    for (std::size_t k = 0; k < nb; ++k) staging[f * nb + k] = h.arrays.f[fields[f]][band[k]];
  NSB_CUDA(cudaMemcpyAsync(h.staging_device, staging, total * sizeof(T), cudaMemcpyHostToDevice, stream));
  for (std::size_t f = 0; f < fields.size(); ++f) {
    mb_unpack_kernel<<<blocks, 256, 0, stream>>>(c.a.f[fields[f]], band_device, nb, h.staging_device + f * nb);
    NSB_LAUNCHED("mb_unpack_kernel");
  }
  if (wait_at_end) NSB_CUDA(cudaStreamSynchronize(stream));
}

template <MbStage S, bool Band, MbHostMemory M, class T>
void mb_host_routine(const MbCall<T>& c) {
  if (!c.host || !c.host->mesh) throw std::logic_error("multiblock host routine: the call has no host side");
  MbHostSide<T>& h = *c.host;
  const std::vector<int> fields = mb_stage_fields(S).writes;
  if constexpr (!Band) {
    if constexpr (M == MbHostMemory::registered) mb_register_host_arrays(h, c.grid.padded_points() * sizeof(T));
    mb_whole_arrays<S>(c, h, fields);
  } else if constexpr (M == MbHostMemory::pinned) {
    mb_band<S>(c, h, fields, mb_pinned_staging(h), false);
  } else {
    mb_band<S>(c, h, fields, h.staging_pageable->data(), true);
  }
}

template <MbStage S, bool Band, MbHostMemory M>
Variant mb_host_routine_variant(const char* status) {
  static constexpr const char* memory[] = {"pageable", "registered", "pinned"};
  Variant v;
  v.stage = std::string("multiblock/") + kMbStageNames[int(S)];
  v.name = std::string(Band ? "boundary_band" : "whole_arrays") + (M == MbHostMemory::pageable ? "" : std::string("_") + memory[int(M)]);
  v.backend = Backend::cuda;
  v.tags = {{"memory", "global"}, {"copy", Band ? "boundary_band" : "whole_arrays"}, {"host_memory", memory[int(M)]},
            {"sync", M == MbHostMemory::pinned ? "async" : "blocking"}};
  v.status = status;
  v.synchronizes = true;
  v.run_float = StageFn(&mb_host_routine<S, Band, M, float>);
  v.run_double = StageFn(&mb_host_routine<S, Band, M, double>);
  if constexpr (Band)
    v.kernels = {{"mb_pack_kernel<float>", (const void*)&mb_pack_kernel<float>, 4},
                 {"mb_pack_kernel<double>", (const void*)&mb_pack_kernel<double>, 8}};
  return v;
}

}  // namespace nsb
