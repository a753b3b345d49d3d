// The multi-block solver's stage call: what every variant of every multiblock stage kind receives
// (harness/solvers/multiblock/stages.cpp), and the work model of each kind.
//
// A call runs one routine on the blocks it lists, one launch (GPU) or one loop nest (CPU) per block, as
// the paper does (Sec. II.B: "every kernel is launched once per domain block"):
//   lamvis, deltatp, stressp, stresstrb, smthp, smthtrb  nodes of the fluid blocks (padded 1..N)
//   flux, fluxtrb                                        cells of the fluid blocks, scattered to corners
//   conjugatep                                           nodes of the solid blocks
//   update                                               nodes of every listed block (fluid: U, solid: T)
//   dtmin, resmax                                        reductions over the listed blocks' nodes -> *scalar
//   ifsum, bc                                            the CPU-side routines (interface sums; boundary
//                                                        conditions and ghost fill), on host arrays; a GPU
//                                                        variant is how the data gets there and back
//   multigrid                                            the CPU multigrid stand-in (multigrid.hpp) on the
//                                                        fluid blocks' changes, `levels` coarse levels; the
//                                                        GPU variants copy the blocks' planes there and back
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "grid.hpp"
#include "multiblock/formulas.hpp"
#include "multiblock/mesh.hpp"
#include "stage.hpp"
#include "stage_kind.hpp"

namespace nsb {

// The stage kinds, in the loop's order (Fig. 1 order of the GPU routines, then the solver's own).
enum class MbStage : int { conjugatep, lamvis, deltatp, dtmin, stressp, stresstrb, flux, fluxtrb, ifsum, smthp, smthtrb, multigrid, update, resmax, bc, count };
inline constexpr const char* kMbStageNames[] = {"conjugatep", "lamvis", "deltatp", "dtmin", "stressp", "stresstrb", "flux",
                                                "fluxtrb", "ifsum", "smthp", "smthtrb", "multigrid", "update", "resmax", "bc"};
class Communicator;

// What the P2P variants of ifsum and bc (host_copies.cuh, not in the paper) know of the other ranks: a run
// over ranks of the threads driver on GPUs with neighbour-only messages (host_side.hpp). Per rank its GPU and
// its staging buffer on it (where its band variant packs its band, field after field); per routine (0: ifsum,
// 1: bc) each rank's band size, the nodes this rank reads from each rank's band and their places in that band,
// and whether each rank reads this rank's band (so waits for it).
template <class T>
struct MbPeers {
  Communicator* comm = nullptr;
  int device = 0;
  std::vector<int> devices;
  std::vector<const T*> staging;
  std::vector<std::size_t> band_size[2];
  std::vector<std::vector<std::uint32_t>> nodes[2], places[2];
  std::vector<bool> read_by[2];
};

// Host-side state of the CPU routines: the mesh and a host copy of every field (for a CPU run these are
// the solver's own arrays), plus staging buffers the GPU variants of ifsum and bc copy through.
template <class T>
struct MbHostSide {
  const MbMesh* mesh = nullptr;
  MbArrays<T> arrays{};  // host arrays, every field
  // Boundary bands (mesh.hpp) of the call's blocks: rows = 1 (ifsum), rows = 3 (bc), on the host and
  // (GPU runs) on the device; staging buffers for them, pinned where the variant asks (allocated lazily).
  std::vector<std::uint32_t> edge_band, bc_band;
  const std::uint32_t* edge_band_device = nullptr;
  const std::uint32_t* bc_band_device = nullptr;
  T* staging_device = nullptr;  // max band size x fields
  std::vector<T>* staging_pageable = nullptr;
  std::size_t staging_elems = 0;
  // Made by the variants that want them on first use, freed with the host side (the deleters undo them):
  // page-locked staging (cudaMallocHost), and the host arrays page-locked in place (cudaHostRegister).
  T* staging_pinned = nullptr;
  std::shared_ptr<void> pinned_owner, registration;
  // The pageable staging page-locked in place (cudaHostRegister), and the per-field CUDA events of the
  // overlapping variant (host_copies.cuh), likewise made on first use.
  std::shared_ptr<void> staging_registration, field_events;
  // A run over ranks (host_side.hpp): the elements of the 13-block arrays this rank holds (its planes,
  // ghost planes included; all of them undecomposed), and the exchange that brings every other rank's
  // band of a stage's fields into `arrays` before the routine runs (empty: one rank).
  std::size_t held_begin = 0, held_elems = 0;
  std::function<void(MbStage)> exchange;
  // Over ranks with neighbour messages on GPUs of the threads driver (else null): the P2P variants' peers,
  // their receive buffers (made on first use: on the device, and its copy on the host), and how they count
  // the bytes and messages they move in place of the exchange's.
  std::shared_ptr<const MbPeers<T>> peers;
  std::shared_ptr<void> peer_buffer;
  std::vector<T> peer_received;
  std::function<void(MbStage, std::size_t, int)> count_peer;
};

template <class T>
struct MbCall {
  using value_type = T;
  Grid grid;  // mb_grid(n)
  MbArrays<T> a{};
  int blocks[kMbBlocks] = {};
  int nblocks = 0;
  double* scalar = nullptr;          // reductions: the result, on the host
  MbHostSide<T>* host = nullptr;     // ifsum, bc, multigrid
  int levels = 0;                    // multigrid: coarse levels wanted (multigrid.hpp caps them by the block)
  Tuning tuning;
  Exec exec;
};

// Which blocks a stage runs on: solid (conjugatep), fluid and solid (update, bc), else fluid.
inline bool mb_stage_on_fluid(MbStage s) { return s != MbStage::conjugatep; }
inline bool mb_stage_on_solid(MbStage s) { return s == MbStage::conjugatep || s == MbStage::update || s == MbStage::bc; }
// The fields a stage reads and writes (stage kinds declare them; the fixtures and the byte model use them).
struct MbStageFields {
  std::vector<int> reads, writes;
};
MbStageFields mb_stage_fields(MbStage s);
// Flops per point (node or cell) of a stage's formulas, counted on an operation-counting number (models.cpp).
double mb_flops_per_point(MbStage s);
// The work of one call of stage s on the given blocks: each field read and written once per node
// (res fields the scatter adds to count as read and written), flops per point from the formulas.
// ifsum and bc count the bytes of their boundary bands, both ways.
WorkModel mb_work_model(MbStage s, const MbMesh& m, const std::vector<int>& blocks, int elem_bytes);

// Blocks of one kind, in order.
std::vector<int> mb_blocks_of(const std::vector<int>& blocks, MbStage s);

}  // namespace nsb
