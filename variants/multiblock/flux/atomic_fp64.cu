// multiblock/flux/atomic_fp64: the four-corner scatter of flux (scatter.cuh says how each scatter works).
#include "multiblock/scatter.cuh"

namespace nsb {
namespace {

const Registrar reg{mb_scatter_variant<MbMeanFlow, MbScatter::atomic_fp64>("multiblock/flux", "study axis (Fig. 6): atomicAdd on the four corners, native FP64 atomics (the paper's Fermi had none; see atomic_cas)")};

}  // namespace
}  // namespace nsb
