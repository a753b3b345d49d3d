// multiblock/bc/boundary_band: host_copies.cuh says how.
#include "multiblock/host_copies.cuh"

namespace nsb {
namespace {

const Registrar reg{mb_host_routine_variant<MbStage::bc, true, MbHostMemory::pageable>("the paper's choice (Sec. IV.C, Fig. 5): only the boundary bands, packed into one host buffer")};

}  // namespace
}  // namespace nsb
