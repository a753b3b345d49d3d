// multiblock/multigrid/whole_arrays: host_copies.cuh says how.
#include "multiblock/host_copies.cuh"

namespace nsb {
namespace {

const Registrar reg{mb_host_routine_variant<MbStage::multigrid, false, MbHostMemory::pageable>("a STAND-IN for the paper's CPU multigrid (its data movement): the fluid blocks' six change fields down whole, the host's levels, back up; pageable, synchronous as the paper's copies")};

}  // namespace
}  // namespace nsb
