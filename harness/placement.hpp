// Where each rank of a run runs: its host and, for a GPU rank, the physical GPU it drives.
//
// Why not the device index: an index is node-local and per-process. On two nodes, rank 0 and the first rank
// of the second node are both device 0; under per-rank binding (srun --gpus-per-task=1, or a
// CUDA_VISIBLE_DEVICES per rank) every rank is device 0. Two ranks share a GPU only when they name the same
// host and the same PCI bus id, so that pair is a GPU's identity across a cluster.
//
// Emulated nodes (tests on one machine): NSB_EMULATE_NODES=K splits an MPI run's ranks into K contiguous
// nodes (mpi::local_rank/local_size follow it) and names the hosts "<host>~node<k>".
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "comm.hpp"

namespace nsb {

struct RankPlacement {
  std::string host;  // the kernel's hostname ("~node<k>" appended under NSB_EMULATE_NODES)
  int device = -1;   // the node-local CUDA device index this process drives, -1 on the host
  std::string gpu;   // "<host>/<PCI bus id>" of that device, "" on the host
  std::uint64_t peak_host_bytes = 0;  // the process's peak resident memory when gathered (ranks of the threads
                                      // driver share one process, so one number)
};

// The kernel's hostname, as the machine block records it.
std::string kernel_hostname();
// This rank's host: kernel_hostname(), with the emulated node appended under NSB_EMULATE_NODES.
std::string this_host();
// The physical identity of node-local device `device` ("" for -1): this_host() + "/" + its PCI bus id.
std::string physical_gpu(int device);

// Collective: every rank of `comm` calls it at the same point with its own device; every rank gets all.
// Gathered at the end of a run, so peak_host_bytes is the run's peak so far.
std::vector<RankPlacement> gather_placements(Communicator& comm, int device);

// The first two ranks (lower first) that drive the same physical GPU, or {-1, -1} when none do.
std::pair<int, int> ranks_sharing_a_gpu(const std::vector<RankPlacement>& placements);

// The number of distinct hosts among the ranks.
int host_count(const std::vector<RankPlacement>& placements);

// Each rank's GPU as a person reads it ("" for a host rank): "gpu<index>", "<host>/gpu<index>" on several hosts,
// and the physical "<host>/<PCI bus id>" wherever those labels would name two different GPUs alike (per-rank
// binding, where every rank is device 0), so that equal labels always mean a shared GPU.
std::vector<std::string> gpu_labels(const std::vector<RankPlacement>& placements);

}  // namespace nsb
