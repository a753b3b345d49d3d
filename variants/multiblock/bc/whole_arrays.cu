// multiblock/bc/whole_arrays: host_copies.cuh says how.
#include "multiblock/host_copies.cuh"

namespace nsb {
namespace {

const Registrar reg{mb_host_routine_variant<MbStage::bc, false, MbHostMemory::pageable>("the paper's naive copies (Fig. 5 baseline): whole arrays down and up, pageable, synchronous")};

}  // namespace
}  // namespace nsb
