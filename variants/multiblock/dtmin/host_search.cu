// multiblock/dtmin/host_search: reduce.cuh says how.
#include "multiblock/reduce.cuh"

namespace nsb {
namespace {

const Registrar reg{mb_reduce_variant<MbDtMin, false>("multiblock/dtmin", "the paper's baseline (Fig. 4): the arrays copied to the host and searched there")};

}  // namespace
}  // namespace nsb
