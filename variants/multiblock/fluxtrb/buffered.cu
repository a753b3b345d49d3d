// multiblock/fluxtrb/buffered: the four-corner scatter of fluxtrb (scatter.cuh says how each scatter works).
#include "multiblock/scatter.cuh"

namespace nsb {
namespace {

const Registrar reg{mb_scatter_variant<MbTurbulence, MbScatter::buffered>("multiblock/fluxtrb", "the paper's choice (Sec. IV.E): one corner direct, three buffered, three add kernels; deterministic")};

}  // namespace
}  // namespace nsb
