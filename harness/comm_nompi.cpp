// The MPI driver in a build without MPI: never launched, and says why when asked.
#include "mpi_driver.hpp"

namespace nsb::mpi {

bool built_with_mpi() { return false; }
bool launched_by_mpirun() { return false; }
void init(int*, char***) {}
void finalize() {}
Communicator* world() { return nullptr; }
int local_rank() { return 0; }
int local_size() { return 1; }
int emulated_node() { return -1; }
std::string cuda_aware_unavailable_reason() { return "nsbench was built without MPI"; }

}  // namespace nsb::mpi
