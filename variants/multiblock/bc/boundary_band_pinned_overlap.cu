// multiblock/bc/boundary_band_pinned_overlap: host_copies.cuh says how.
#include "multiblock/host_copies.cuh"

namespace nsb {
namespace {

const Registrar reg{mb_host_routine_variant<MbStage::bc, true, MbHostMemory::pinned_overlap>("Sec. IV.D: pinned async copies field by field on the stream, the host unpacking and packing each field while the others copy")};

}  // namespace
}  // namespace nsb
