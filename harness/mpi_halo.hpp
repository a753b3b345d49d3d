// The plane exchange every MPI halo variant ends with: receives posted first, then sends, then one
// wait. Tags carry the direction, so that with two ranks and periodic z (both neighbours the same
// rank) each plane still lands in the right ghost plane.
#pragma once

#include <mpi.h>

#include <stdexcept>
#include <vector>

#include "decomposition.hpp"

namespace nsb {

struct PlaneMessage {
  void* recv_lo = nullptr;        // my ghost plane 0 (or its staging buffer)
  void* recv_hi = nullptr;        // my ghost plane nz+1
  const void* send_lo = nullptr;  // my plane 1, going down
  const void* send_hi = nullptr;  // my plane nz, going up
};

inline void exchange_planes(MPI_Comm comm, const Slab& s, std::size_t bytes, const std::vector<PlaneMessage>& fields) {
  std::vector<MPI_Request> req;
  req.reserve(4 * fields.size());
  const int n = int(bytes);
  for (std::size_t f = 0; f < fields.size(); ++f) {
    const int up = int(2 * f), down = int(2 * f + 1);
    req.emplace_back(), MPI_Irecv(fields[f].recv_lo, s.has_lo() ? n : 0, MPI_BYTE, s.has_lo() ? s.lo_rank : MPI_PROC_NULL, up, comm, &req.back());
    req.emplace_back(), MPI_Irecv(fields[f].recv_hi, s.has_hi() ? n : 0, MPI_BYTE, s.has_hi() ? s.hi_rank : MPI_PROC_NULL, down, comm, &req.back());
  }
  for (std::size_t f = 0; f < fields.size(); ++f) {
    const int up = int(2 * f), down = int(2 * f + 1);
    req.emplace_back(), MPI_Isend(fields[f].send_lo, s.has_lo() ? n : 0, MPI_BYTE, s.has_lo() ? s.lo_rank : MPI_PROC_NULL, down, comm, &req.back());
    req.emplace_back(), MPI_Isend(fields[f].send_hi, s.has_hi() ? n : 0, MPI_BYTE, s.has_hi() ? s.hi_rank : MPI_PROC_NULL, up, comm, &req.back());
  }
  if (MPI_Waitall(int(req.size()), req.data(), MPI_STATUSES_IGNORE) != MPI_SUCCESS)
    throw std::runtime_error("halo exchange: MPI_Waitall failed");
}

}  // namespace nsb
