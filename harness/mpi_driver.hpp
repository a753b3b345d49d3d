// The MPI driver: `mpirun -np N nsbench run ...` runs one rank per process. MPI is initialised in
// main() only when the process was started by an MPI launcher, so the same binary runs without one.
#pragma once

#include <string>

#include "comm.hpp"

namespace nsb::mpi {

bool built_with_mpi();
// True when an MPI launcher started this process (Open MPI, PMIx or Hydra environment variables).
bool launched_by_mpirun();
// Initialises MPI (when launched by mpirun and built with MPI); call once, first thing in main.
void init(int* argc, char*** argv);
void finalize();
// The communicator of all ranks, or null when MPI is not in use.
Communicator* world();
// Rank and rank count among the processes of this node (GPU binding).
int local_rank();
int local_size();
// The emulated node of this process under NSB_EMULATE_NODES=K (the world's ranks in K contiguous nodes, for
// tests of multi-node rules on one machine), else -1. local_rank/local_size then count within it.
int emulated_node();
// What the MPI library says about CUDA-aware transfers ("" when it is CUDA-aware, else the reason).
std::string cuda_aware_unavailable_reason();

}  // namespace nsb::mpi
