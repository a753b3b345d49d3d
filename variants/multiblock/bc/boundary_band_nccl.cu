// multiblock/bc/boundary_band_nccl: nccl_bands.cuh says how (built only with NCCL).
#include "multiblock/nccl_bands.cuh"

namespace nsb {
namespace {

const Registrar reg{mb_nccl_band_variant<MbStage::bc>("NOT IN THE PAPER: the boundary band, the other ranks' nodes sent GPU to GPU by NCCL (grouped ncclSend/ncclRecv on the stream) instead of the host exchange; threads-driver GPU ranks, one GPU a rank, with --case-param exchange=neighbours (one rank: as boundary_band)")};

}  // namespace
}  // namespace nsb
