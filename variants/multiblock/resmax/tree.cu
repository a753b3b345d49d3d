// multiblock/resmax/tree: reduce.cuh says how.
#include "multiblock/reduce.cuh"

namespace nsb {
namespace {

const Registrar reg{mb_reduce_variant<MbResMax, true>("multiblock/resmax", "the paper's choice (Sec. IV.B, Fig. 4): Harris's shared-memory tree, one value back to the host")};

}  // namespace
}  // namespace nsb
