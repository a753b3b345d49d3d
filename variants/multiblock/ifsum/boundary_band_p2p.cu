// multiblock/ifsum/boundary_band_p2p: host_copies.cuh says how (the peer way).
#include "multiblock/host_copies.cuh"

namespace nsb {
namespace {

const Registrar reg{mb_host_routine_variant<MbStage::ifsum, true, MbHostMemory::peer>("NOT IN THE PAPER: the boundary band, the other ranks' nodes pulled from their GPUs (cudaMemcpyPeerAsync) instead of the host exchange; threads-driver GPU ranks with --case-param exchange=neighbours (one rank: as boundary_band)")};

}  // namespace
}  // namespace nsb
