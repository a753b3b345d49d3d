// multiblock/flux/atomic_cas: the four-corner scatter of flux (scatter.cuh says how each scatter works).
#include "multiblock/scatter.cuh"

namespace nsb {
namespace {

const Registrar reg{mb_scatter_variant<MbMeanFlow, MbScatter::atomic_cas>("multiblock/flux", "study axis (Fig. 6): the paper's atomics as Fermi ran them, an atomicCAS loop per double add")};

}  // namespace
}  // namespace nsb
