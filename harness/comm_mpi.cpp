// MpiComm and the MPI driver's set-up (built when CMake finds MPI).
#include <mpi.h>
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>  // Open MPI: MPIX_CUDA_AWARE_SUPPORT, MPIX_Query_cuda_support
#endif

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "mpi_driver.hpp"
#include "mpi_comm.hpp"

namespace nsb {
namespace {

void check(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char msg[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, msg, &len);
  throw std::runtime_error(std::string(what) + ": " + std::string(msg, std::size_t(len)));
}

std::unique_ptr<MpiComm> g_world;
int g_local_rank = 0, g_local_size = 1, g_emulated_node = -1;

// NSB_EMULATE_NODES=K: 1..world size, else 0 (not emulating). Anything else ends the run with the reason:
// a typo must not silently run as one node.
int emulated_node_count(int world_size) {
  const char* v = std::getenv("NSB_EMULATE_NODES");
  if (!v || !*v) return 0;
  char* end = nullptr;
  const long k = std::strtol(v, &end, 10);
  if (*end || k < 1 || k > world_size) {
    std::fprintf(stderr, "nsbench: error: NSB_EMULATE_NODES=%s: expected a node count from 1 to the %d ranks\n", v,
                 world_size);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  return int(k);
}

}  // namespace

MpiComm::MpiComm(MPI_Comm c) : comm_(c) {
  MPI_Comm_rank(c, &rank_);
  MPI_Comm_size(c, &size_);
}

void MpiComm::barrier() { check(MPI_Barrier(comm_), "MPI_Barrier"); }

double MpiComm::allreduce_sum(double x) {
  // Gathered and added in rank order, so the sum is the same bits as the threads driver's.
  double s = 0;
  for (double v : allgather_value(x)) s += v;
  return s;
}

double MpiComm::allreduce_max(double x) {
  double r = 0;
  check(MPI_Allreduce(&x, &r, 1, MPI_DOUBLE, MPI_MAX, comm_), "MPI_Allreduce");
  return r;
}

void MpiComm::broadcast(void* data, std::size_t bytes, int root) {
  check(MPI_Bcast(data, int(bytes), MPI_BYTE, root, comm_), "MPI_Bcast");
}

std::vector<std::vector<char>> MpiComm::allgather(const void* data, std::size_t bytes) {
  std::vector<char> all(bytes * std::size_t(size_));
  check(MPI_Allgather(data, int(bytes), MPI_BYTE, all.data(), int(bytes), MPI_BYTE, comm_), "MPI_Allgather");
  std::vector<std::vector<char>> out;
  for (int r = 0; r < size_; ++r) out.emplace_back(all.begin() + std::ptrdiff_t(bytes) * r, all.begin() + std::ptrdiff_t(bytes) * (r + 1));
  return out;
}

// Point to point in chunks below 1 GiB: MPI counts are ints, and whole fields can exceed 2 GiB.
std::vector<std::vector<char>> MpiComm::gather(const void* data, std::size_t bytes, int root) {
  constexpr std::size_t chunk = std::size_t(1) << 30;
  const std::vector<unsigned long long> sizes = allgather_value<unsigned long long>(bytes);
  std::vector<std::vector<char>> out;
  if (rank_ != root) {
    for (std::size_t off = 0; off < bytes; off += chunk)
      check(MPI_Send(static_cast<const char*>(data) + off, int(std::min(chunk, bytes - off)), MPI_BYTE, root, 7, comm_),
            "MPI_Send");
    return out;
  }
  out.resize(std::size_t(size_));
  for (int r = 0; r < size_; ++r) {
    std::vector<char>& b = out[std::size_t(r)];
    b.resize(sizes[std::size_t(r)]);
    if (r == root) {
      std::copy(static_cast<const char*>(data), static_cast<const char*>(data) + bytes, b.begin());
      continue;
    }
    for (std::size_t off = 0; off < b.size(); off += chunk)
      check(MPI_Recv(b.data() + off, int(std::min(chunk, b.size() - off)), MPI_BYTE, r, 7, comm_, MPI_STATUS_IGNORE),
            "MPI_Recv");
  }
  return out;
}

// Every receive posted before any send (MPI_Irecv, MPI_Isend, one MPI_Waitall), so no pattern of
// neighbours can deadlock; a tag of its own (gather's is 7), and MPI keeps a pair's messages in order.
// Messages past 1 GiB go in chunks (MPI counts are ints); a receive's size is checked against the send's.
void MpiComm::neighbour_exchange(const std::vector<Send>& sends, const std::vector<Recv>& recvs) {
  constexpr std::size_t chunk = std::size_t(1) << 30;
  constexpr int tag = 8;
  std::vector<MPI_Request> req;
  std::vector<std::size_t> first_of;  // each receive's first request (a zero-byte message is one request too)
  for (const Recv& r : recvs) {
    first_of.push_back(req.size());
    for (std::size_t off = 0; off < std::max<std::size_t>(r.bytes, 1); off += chunk)
      check(MPI_Irecv(static_cast<char*>(r.data) + off, int(std::min(chunk, r.bytes - off)), MPI_BYTE,
                      r.from, tag, comm_, &req.emplace_back()),
            "MPI_Irecv");
  }
  const std::size_t receives = req.size();
  for (const Send& s : sends)
    for (std::size_t off = 0; off < std::max<std::size_t>(s.bytes, 1); off += chunk)
      check(MPI_Isend(static_cast<const char*>(s.data) + off, int(std::min(chunk, s.bytes - off)),
                      MPI_BYTE, s.to, tag, comm_, &req.emplace_back()),
            "MPI_Isend");
  std::vector<MPI_Status> st(req.size());
  check(MPI_Waitall(int(req.size()), req.data(), st.data()), "MPI_Waitall");
  for (std::size_t k = 0; k < recvs.size(); ++k) {
    std::size_t got = 0;
    const std::size_t end = k + 1 < recvs.size() ? first_of[k + 1] : receives;
    for (std::size_t q = first_of[k]; q < end; ++q) {
      int n = 0;
      MPI_Get_count(&st[q], MPI_BYTE, &n);
      got += std::size_t(n);
    }
    if (got != recvs[k].bytes)
      throw std::logic_error("neighbour_exchange: rank " + std::to_string(rank_) + " expects " + std::to_string(recvs[k].bytes) +
                             " bytes from rank " + std::to_string(recvs[k].from) + ", which sent " + std::to_string(got));
  }
}

void MpiComm::abort(const std::string& why) {
  std::fprintf(stderr, "nsbench: error: %s (aborting all MPI ranks)\n", why.c_str());
  std::fflush(stderr);
  MPI_Abort(comm_, 1);
  std::abort();  // MPI_Abort does not return; the compiler cannot know
}

namespace mpi {

bool built_with_mpi() { return true; }

bool launched_by_mpirun() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE"})
    if (std::getenv(v)) return true;
  return false;
}

void init(int* argc, char*** argv) {
  if (!launched_by_mpirun()) return;
  int provided = 0;
  MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
  g_world = std::make_unique<MpiComm>(MPI_COMM_WORLD);
  MPI_Comm node;
  if (const int nodes = emulated_node_count(g_world->size())) {  // contiguous ranks per node, as srun's block
    g_emulated_node = int(static_cast<long long>(g_world->rank()) * nodes / g_world->size());
    MPI_Comm_split(MPI_COMM_WORLD, g_emulated_node, g_world->rank(), &node);
  } else {
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  }
  MPI_Comm_rank(node, &g_local_rank);
  MPI_Comm_size(node, &g_local_size);
  MPI_Comm_free(&node);
}

void finalize() {
  if (!g_world) return;
  g_world.reset();
  MPI_Finalize();
}

Communicator* world() { return g_world.get(); }
int local_rank() { return g_local_rank; }
int local_size() { return g_local_size; }
int emulated_node() { return g_emulated_node; }

std::string cuda_aware_unavailable_reason() {
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  if (MPIX_Query_cuda_support() == 1) return "";
  return "this MPI library was built CUDA-aware but reports no CUDA support at run time "
         "(MPIX_Query_cuda_support() = 0)";
#elif defined(MPIX_CUDA_AWARE_SUPPORT)
  return "this MPI library was built without CUDA support (MPIX_CUDA_AWARE_SUPPORT = 0 in mpi-ext.h)";
#else
  return "this MPI library cannot say whether it is CUDA-aware (no MPIX_CUDA_AWARE_SUPPORT in mpi-ext.h)";
#endif
}

}  // namespace mpi
}  // namespace nsb
