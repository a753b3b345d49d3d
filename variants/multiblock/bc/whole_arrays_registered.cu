// multiblock/bc/whole_arrays_registered: host_copies.cuh says how.
#include "multiblock/host_copies.cuh"

namespace nsb {
namespace {

const Registrar reg{mb_host_routine_variant<MbStage::bc, false, MbHostMemory::registered>("Sec. IV.D: whole arrays, the host arrays page-locked in place by cudaHostRegister")};

}  // namespace
}  // namespace nsb
