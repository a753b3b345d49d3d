// What the CPU-side stages (ifsum, bc) of a GPU run need besides the device arrays: host copies of the
// fields, the boundary bands on the host and the device, and the staging buffers (stage_call.hpp's
// MbHostSide, owned). A CPU run's host side points at its own arrays and needs none of the rest.
#pragma once

#include <memory>
#include <vector>

#include "fields.hpp"
#include "multiblock/stage_call.hpp"

namespace nsb {

template <class T>
class MbHostStore {
 public:
  // `device_fields`: the arrays the stages run on (host arrays for a CPU run, whose host side is themselves).
  MbHostStore(const MbMesh& mesh, const FieldSet<T>& device_fields, const std::vector<int>& blocks) {
    side_.mesh = &mesh;
    side_.edge_band = mb_boundary_band(mesh, mb_blocks_of(blocks, MbStage::ifsum), 1);  // fluid: the sums are theirs
    side_.bc_band = mb_boundary_band(mesh, blocks, 3);
    if (!device_fields.on_device()) {
      for (int f = 0; f < kMbFieldCount; ++f)
        side_.arrays.f[f] = device_fields.has(kMbFieldNames[f]) ? device_fields[kMbFieldNames[f]] : nullptr;
      return;
    }
    mirror_ = std::make_unique<FieldSet<T>>(device_fields.points(), false);
    for (int f = 0; f < kMbScratch; ++f)
      if (device_fields.has(kMbFieldNames[f])) side_.arrays.f[f] = mirror_->add(kMbFieldNames[f]);
    edge_ = Buffer<std::uint32_t>(side_.edge_band.size(), true, "multiblock edge band");
    edge_.upload(side_.edge_band);
    bc_ = Buffer<std::uint32_t>(side_.bc_band.size(), true, "multiblock bc band");
    bc_.upload(side_.bc_band);
    side_.edge_band_device = edge_.get(), side_.bc_band_device = bc_.get();
    const std::size_t staging = std::max(side_.edge_band.size() * 6, side_.bc_band.size() * 7);
    staging_device_ = Buffer<T>(staging, true, "multiblock staging");
    side_.staging_device = staging_device_.get();
    staging_host_.assign(staging, T(0));
    side_.staging_pageable = &staging_host_;
    side_.staging_elems = staging;
  }
  MbHostSide<T>* side() { return &side_; }

 private:
  std::unique_ptr<FieldSet<T>> mirror_;
  Buffer<std::uint32_t> edge_, bc_;
  Buffer<T> staging_device_;
  std::vector<T> staging_host_;
  MbHostSide<T> side_;  // last: destroyed first, so its deleters unregister the mirror before it is freed
};

}  // namespace nsb
