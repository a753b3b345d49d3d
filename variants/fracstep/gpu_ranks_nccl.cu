// A fracstep V2 y-slab rank on a GPU talking by NCCL (harness/solvers/fracstep/gpu_ranks.hpp,
// gpu_messages=nccl): either driver, one GPU a rank, everything on the rank's stream (no host wait).
// Built only where NCCL is found (CMakeLists.txt, as variants/halo/nccl.cu).
//
// Ghost rows: a field's row is NZ runs of NX values a plane apart, so each edge row is packed by one
// strided device copy (cudaMemcpy2DAsync) into a send buffer laid out [side][field][row], each side one
// message (down to rank r - 1: the rows 1; up to r + 1: the rows ny); the two receives land in a buffer of
// the same layout and are unpacked into rows 0 and ny + 1 the same way. The split y solves' messages:
// NcclSplitMessages (tridiag/split_nccl.cuh), shared by ADI-Y and TDMA-C: on the rank's stream (V2), or
// (V2-async, overlap) on the message stream of a StreamSplitOverlap (tridiag/split_overlap.cuh). One
// communicator serves both streams: the split solve queues no NCCL call on the compute stream while the message
// stream holds one (each message waits for the compute work before it, and the compute stream waits for every
// message before the solve returns), so the communicator's calls never run two at a time.
#include <cuda_runtime.h>

#include <memory>
#include <vector>

#include "cuda/check.cuh"
#include "cuda/nccl_comm.cuh"
#include "fields.hpp"
#include "fracstep/gpu_ranks.hpp"
#include "tridiag/split_nccl.cuh"
#include "tridiag/split_overlap.cuh"

namespace nsb {
namespace {

template <class T>
class NcclGhostRows final : public GhostRows<T> {
 public:
  NcclGhostRows(ncclComm_t comm, int rank, int ranks, const Grid& g, cudaStream_t stream)
      : comm_(comm), rank_(rank), ranks_(ranks), g_(g), stream_(stream) {}

  void exchange(const std::vector<T*>& fields) override {
    const std::size_t row = std::size_t(g_.NX()) * std::size_t(g_.NZ()), side = row * fields.size();
    if (send_.size() < 2 * side) {  // the most fields an exchange has had (cudaFree waits for the last one's messages)
      send_ = Buffer<T>(2 * side, true, "fracstep: NCCL ghost rows sent");
      recv_ = Buffer<T>(2 * side, true, "fracstep: NCCL ghost rows received");
    }
    const bool below = rank_ > 0, above = rank_ + 1 < ranks_;
    for (std::size_t f = 0; f < fields.size(); ++f) {
      if (below) rows(send_.get() + f * row, fields[f], 1, true);
      if (above) rows(send_.get() + side + f * row, fields[f], g_.ny, true);
    }
    nccl_check(ncclGroupStart(), "ncclGroupStart");
    if (below) nccl_check(ncclSend(send_.get(), side, nccl_type<T>(), rank_ - 1, comm_, stream_), "ncclSend (ghost rows)");
    if (above) nccl_check(ncclSend(send_.get() + side, side, nccl_type<T>(), rank_ + 1, comm_, stream_), "ncclSend (ghost rows)");
    if (below) nccl_check(ncclRecv(recv_.get() + side, side, nccl_type<T>(), rank_ - 1, comm_, stream_), "ncclRecv (ghost rows)");
    if (above) nccl_check(ncclRecv(recv_.get(), side, nccl_type<T>(), rank_ + 1, comm_, stream_), "ncclRecv (ghost rows)");
    nccl_check(ncclGroupEnd(), "ncclGroupEnd");
    for (std::size_t f = 0; f < fields.size(); ++f) {  // what r - 1 sent up is its row ny: my row 0
      if (below) rows(recv_.get() + side + f * row, fields[f], 0, false);
      if (above) rows(recv_.get() + f * row, fields[f], g_.ny + 1, false);
    }
  }

 private:
  // Row j of a padded field to (pack) or from (unpack) `packed` (NZ runs of NX values, contiguous).
  void rows(T* packed, T* field, int j, bool pack) {
    const std::size_t run = std::size_t(g_.NX()) * sizeof(T), plane = run * std::size_t(g_.NY());
    T* at = field + std::size_t(j) * g_.NX();
    if (pack) NSB_CUDA(cudaMemcpy2DAsync(packed, run, at, plane, run, std::size_t(g_.NZ()), cudaMemcpyDeviceToDevice, stream_));
    else NSB_CUDA(cudaMemcpy2DAsync(at, plane, packed, run, run, std::size_t(g_.NZ()), cudaMemcpyDeviceToDevice, stream_));
  }

  ncclComm_t comm_;
  int rank_, ranks_;
  Grid g_;
  cudaStream_t stream_;
  Buffer<T> send_, recv_;
};

}  // namespace

template <class T>
GpuRankLinks<T> make_nccl_gpu_rank_links(Communicator& comm, const Grid& g, cudaStream_t stream, int device, bool overlap) {
  auto nccl = std::make_shared<NcclComm>(comm, device, "fracstep gpu_messages=nccl",
                                         "gpu_messages=peer runs ranks that share a GPU (threads driver)");
  GpuRankLinks<T> links;
  links.ghost_rows = std::make_unique<NcclGhostRows<T>>(nccl->get(), comm.rank(), comm.size(), g, stream);
  cudaStream_t messages = stream;
  if (overlap) {
    auto streams = std::make_unique<StreamSplitOverlap>(stream);
    messages = streams->message_stream();
    links.overlap = std::move(streams);
  }
  links.messages = std::make_unique<NcclSplitMessages<T>>(nccl->get(), comm.rank(), comm.size(), messages);
  links.keep = nccl;
  return links;
}

template GpuRankLinks<float> make_nccl_gpu_rank_links<float>(Communicator&, const Grid&, cudaStream_t, int, bool);
template GpuRankLinks<double> make_nccl_gpu_rank_links<double>(Communicator&, const Grid&, cudaStream_t, int, bool);

}  // namespace nsb
