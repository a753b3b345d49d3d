// fracstep/transpose_zx/ranks_peer and fracstep/transpose_xz/ranks_peer: V1's global transpose on p real
// ranks, one host thread and GPU a rank (the threads driver; rank r on GPU r % count), each holding only its
// own slabs. The all-to-all is peer copies: every rank pulls its p - 1 blocks from the others' memory
// (transpose_peer.cuh, shared with V1's GPU ranks: the buffers' addresses exchanged once a call, CUDA events
// order the pulls after the senders' packs and every rank's frees after the others' pulls; the host never
// waits for a GPU inside).
// Rank 0 runs on the call's stream, so its phases are the call's timer's sections: pack (or unpack), and
// all_to_all from the moment every rank's blocks are ready. The call also scatters the call's field to the
// ranks and gathers their result back (and starts the threads): the call's whole time is not a rank's,
// its sections are rank 0's.
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "comm.hpp"
#include "fields.hpp"
#include "peer_ranks.hpp"
#include "transpose/transpose_peer.cuh"

namespace nsb {
namespace {

// One rank's slabs and scratch on its GPU: `from` (its source slab), `to` (its destination slab), `buffer`
// (its send or receive blocks, a z-slab's size).
template <class T>
struct RankSlabs {
  Buffer<T> from, to, buffer;
  std::size_t from_at, to_at;  // where the rank's slabs lie in the call's arrays
};

template <class T>
RankSlabs<T> rank_slabs(const TransposeShape& s, bool to_x, int r) {
  const std::size_t zwords = s.zslab_offset(r + 1) - s.zslab_offset(r);
  const std::size_t xwords = s.xslab_offset(r + 1) - s.xslab_offset(r);
  return {Buffer<T>(to_x ? zwords : xwords, true, "transpose rank: from"),
          Buffer<T>(to_x ? xwords : zwords, true, "transpose rank: to"), Buffer<T>(zwords, true, "transpose rank: blocks"),
          to_x ? s.zslab_offset(r) : s.xslab_offset(r), to_x ? s.xslab_offset(r) : s.zslab_offset(r)};
}

// Rank r's transpose: local pass and pulls on its stream (transpose_peer.cuh), rank 0's phases timed.
template <class T>
void rank_transpose(const TransposeCall<T>& c, PeerRanks& peers, RankSlabs<T>& mine, int r, cudaStream_t stream) {
  const bool to_x = c.direction == TransposeDirection::z_to_x;
  T* const zslab = to_x ? mine.from.get() : mine.to.get();
  T* const xslab = to_x ? mine.to.get() : mine.from.get();
  transpose_on_gpu_rank(peers, c.shape, r, compact_z_slab(c.shape, zslab), xslab, mine.buffer.get(), c.direction,
                        transpose_threads(c), stream, r == 0 ? c.timer : nullptr);
}

template <class T>
void run_on_ranks(const TransposeCall<T>& c) {
  const TransposeShape s = c.shape;
  check_transpose_shape(s);
  int gpus = 0;
  NSB_CUDA(cudaGetDeviceCount(&gpus));
  const auto call_stream = static_cast<cudaStream_t>(c.exec.stream);
  NSB_CUDA(cudaStreamSynchronize(call_stream));  // the call's source field is written
  const bool to_x = c.direction == TransposeDirection::z_to_x;
  const auto group = std::make_shared<ThreadGroup>(s.p);
  std::string error;
  std::mutex error_mutex;
  std::vector<std::thread> ranks;
  for (int r = 0; r < s.p; ++r)
    ranks.emplace_back([&, r] {
      ThreadComm comm(group, r);
      // rank 0: the call's (its timer's events are on it); the others their own, made below (so an error
      // before that destroys nothing of the caller's)
      cudaStream_t stream = r == 0 ? call_stream : nullptr;
      try {
        const int device = r % gpus;
        NSB_CUDA(cudaSetDevice(device));
        if (r > 0) NSB_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
        if (!PeerRanks::possible(comm, device))
          throw std::runtime_error("the ranks' GPUs cannot all access each other directly (peer access)");
        RankSlabs<T> mine = rank_slabs<T>(s, to_x, r);
        NSB_CUDA(cudaMemcpyAsync(mine.from.get(), c.from + mine.from_at, mine.from.size() * sizeof(T), cudaMemcpyDefault,
                                 stream));
        {
          PeerRanks peers(comm, device, stream);
          rank_transpose(c, peers, mine, r, stream);
          // Every rank has queued its waits on the others' events before any rank's PeerRanks (and its
          // events) goes: the last wait_for_all's gather is a barrier before the waits, not after them.
          comm.barrier();
        }
        NSB_CUDA(cudaMemcpyAsync(c.to + mine.to_at, mine.to.get(), mine.to.size() * sizeof(T), cudaMemcpyDefault, stream));
        NSB_CUDA(cudaStreamSynchronize(stream));
      } catch (const PeerFailed&) {
      } catch (const std::exception& e) {
        {
          std::lock_guard<std::mutex> lock(error_mutex);
          if (error.empty()) error = "rank " + std::to_string(r) + ": " + e.what();
        }
        group->abort(e.what());
      }
      if (r > 0 && stream) cudaStreamDestroy(stream);
    });
  for (std::thread& t : ranks) t.join();
  if (!error.empty()) throw std::runtime_error("fracstep transpose on ranks: " + error);
}

Variant ranks_peer(const char* stage) {
  Variant v;
  v.stage = stage;
  v.name = "ranks_peer";
  v.backend = Backend::cuda;
  v.tags = {{"memory", "global"}, {"mapping", "rank_per_gpu"}};
  v.tunings = {parse_tuning("b256")};
  v.synchronizes = true;  // waits for its ranks
  v.status = "real ranks (threads, a GPU each, the all-to-all by peer pulls): rank 0's phases measured; the call's whole "
             "time (threads, scatter, gather) is not a rank's";
  v.run_float = &run_on_ranks<float>;
  v.run_double = &run_on_ranks<double>;
  v.kernels = transpose_kernels();
  return v;
}
const Registrar zx{ranks_peer("fracstep/transpose_zx")};
const Registrar xz{ranks_peer("fracstep/transpose_xz")};

}  // namespace
}  // namespace nsb
