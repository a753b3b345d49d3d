// multiblock/multigrid/whole_arrays_registered: host_copies.cuh says how.
#include "multiblock/host_copies.cuh"

namespace nsb {
namespace {

const Registrar reg{mb_host_routine_variant<MbStage::multigrid, false, MbHostMemory::registered>("Sec. IV.D applied to the multigrid stand-in: its host arrays page-locked in place by cudaHostRegister")};

}  // namespace
}  // namespace nsb
