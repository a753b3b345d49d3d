// multiblock/flux/buffered: the four-corner scatter of flux (scatter.cuh says how each scatter works).
#include "multiblock/scatter.cuh"

namespace nsb {
namespace {

const Registrar reg{mb_scatter_variant<MbMeanFlow, MbScatter::buffered>("multiblock/flux", "the paper's choice (Sec. IV.E): one corner direct, three buffered, three add kernels; deterministic")};

}  // namespace
}  // namespace nsb
