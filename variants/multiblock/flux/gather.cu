// multiblock/flux/gather: the four-corner scatter of flux (scatter.cuh says how each scatter works).
#include "multiblock/scatter.cuh"

namespace nsb {
namespace {

const Registrar reg{mb_scatter_variant<MbMeanFlow, MbScatter::gather>("multiblock/flux", "not in the paper: node-centric gather, each node recomputes its four cells; no atomics, no buffers")};

}  // namespace
}  // namespace nsb
