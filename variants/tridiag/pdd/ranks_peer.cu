// tridiag/pdd/ranks_peer and tridiag/ppt/ranks_peer: the split solve on real ranks, one host thread and
// GPU a rank, each holding its block of rows only, PDD's neighbour messages or PPT's all-gather as peer
// copies (tridiag/split_peer.cuh): what a rank of the paper's V2 does for ADI-Y and TDMA-C. A check of
// real ranks against the reference: the scatter, gather and thread start are inside the call, so its
// time is not a rank's.
#include "tridiag/split_peer.cuh"

namespace nsb {
namespace {

Variant ranks_peer(const char* stage, bool ppt) {
  return Variant{
      .stage = stage,
      .name = "ranks_peer",
      .backend = Backend::cuda,
      .tags = {{"memory", "global"}, {"method", ppt ? "ppt" : "pdd"}, {"mapping", "rank_per_gpu"}},
      .tunings = {parse_tuning("b128")},
      .synchronizes = true,  // waits for its ranks
      .status = "real ranks (threads, a GPU each, peer-copy messages): a correctness check, not a rank's time",
      .run_float = ppt ? &run_split_on_ranks<float, true> : &run_split_on_ranks<float, false>,
      .run_double = ppt ? &run_split_on_ranks<double, true> : &run_split_on_ranks<double, false>,
  };
}
const Registrar pdd{ranks_peer("tridiag/pdd", false)};
const Registrar ppt{ranks_peer("tridiag/ppt", true)};

}  // namespace
}  // namespace nsb
