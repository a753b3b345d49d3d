// multiblock/ifsum/boundary_band_pinned: host_copies.cuh says how.
#include "multiblock/host_copies.cuh"

namespace nsb {
namespace {

const Registrar reg{mb_host_routine_variant<MbStage::ifsum, true, MbHostMemory::pinned>("Sec. IV.D: the boundary bands through a pinned staging buffer, async copies")};

}  // namespace
}  // namespace nsb
