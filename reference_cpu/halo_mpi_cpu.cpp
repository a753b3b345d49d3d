// halo/mpi_sendrecv: host arrays, one MPI process per rank; the edge planes are contiguous, so they
// are sent and received in place, without packing.
#include "halo.hpp"
#include "mpi_comm.hpp"
#include "mpi_halo.hpp"

namespace nsb {
namespace {

template <class T>
class MpiSendrecv final : public HaloExchange<T> {
 public:
  explicit MpiSendrecv(const RankContext& c) : c_(c), comm_(mpi_handle(*c.comm, "halo/mpi_sendrecv")) {}
  void exchange(const std::vector<T*>& fields) override {
    const Slab& s = c_.slab();
    std::vector<PlaneMessage> m;
    for (T* f : fields)
      m.push_back({plane(f, c_.grid, 0), plane(f, c_.grid, s.nz + 1), plane(f, c_.grid, 1), plane(f, c_.grid, s.nz)});
    exchange_planes(comm_, s, plane_elems(c_.grid) * sizeof(T), m);
  }

 private:
  RankContext c_;
  MPI_Comm comm_;
};

template <class T>
std::unique_ptr<HaloExchange<T>> make(const RankContext& c) {
  return std::make_unique<MpiSendrecv<T>>(c);
}

const HaloRegistrar reg{{.name = "mpi_sendrecv",
                         .backend = Backend::cpu_serial,
                         .driver = "mpi",
                         .tags = {{"halo", "mpi"}, {"sync", "blocking"}},
                         .tunings = {},
                         .make_float = &make<float>,
                         .make_double = &make<double>}};

}  // namespace
}  // namespace nsb
