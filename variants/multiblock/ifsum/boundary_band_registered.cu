// multiblock/ifsum/boundary_band_registered: host_copies.cuh says how.
#include "multiblock/host_copies.cuh"

namespace nsb {
namespace {

const Registrar reg{mb_host_routine_variant<MbStage::ifsum, true, MbHostMemory::registered>("Sec. IV.D: the boundary bands through the host buffer page-locked in place (cudaHostRegister), copies still synchronous")};

}  // namespace
}  // namespace nsb
