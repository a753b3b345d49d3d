// halo/shared_memory_copy: ranks are threads of one process holding host arrays; each rank copies its
// neighbours' edge planes straight into its own ghost planes. The CPU counterpart of p2p_sync, and
// what the CPU-only tests use to check the decomposition and the exchange logic.
#include <cstring>

#include "halo.hpp"

namespace nsb {
namespace {

template <class T>
class SharedMemoryCopy final : public HaloExchange<T> {
 public:
  explicit SharedMemoryCopy(const RankContext& c) : c_(c) {
    if (c.comm->driver() != "threads")
      throw std::runtime_error("halo/shared_memory_copy needs ranks that share memory (the threads driver, "
                               "--ranks N), not the " + c.comm->driver() + " driver");
  }
  void attach(const std::vector<T*>& buffers) override {
    mine_ = buffers;
    for (std::size_t i = 0; i < buffers.size(); ++i) {
      const std::vector<T*> all = c_.comm->allgather_value(buffers[i]);
      for (std::size_t r = 0; r < all.size(); ++r) {
        peers_.resize(all.size());
        peers_[r].push_back(all[r]);
      }
    }
  }
  void exchange(const std::vector<T*>& fields) override {
    const Slab& s = c_.slab();
    const std::size_t bytes = plane_elems(c_.grid) * sizeof(T);
    c_.comm->barrier();  // every neighbour has finished writing its edge planes
    for (T* f : fields) {
      const std::size_t i = buffer_index(mine_, f);
      if (s.has_lo()) {
        const Slab& lo = c_.slabs[std::size_t(s.lo_rank)];
        std::memcpy(plane(f, c_.grid, 0), plane(peers_[std::size_t(s.lo_rank)][i], c_.grid, lo.nz), bytes);
      }
      if (s.has_hi()) std::memcpy(plane(f, c_.grid, s.nz + 1), plane(peers_[std::size_t(s.hi_rank)][i], c_.grid, 1), bytes);
    }
    c_.comm->barrier();  // nobody overwrites an edge plane a neighbour is still reading
  }

 private:
  RankContext c_;
  std::vector<T*> mine_;
  std::vector<std::vector<T*>> peers_;  // [rank][buffer]
};

template <class T>
std::unique_ptr<HaloExchange<T>> make(const RankContext& c) {
  return std::make_unique<SharedMemoryCopy<T>>(c);
}

const HaloRegistrar reg{{.name = "shared_memory_copy",
                         .backend = Backend::cpu_serial,
                         .driver = "threads",
                         .tags = {{"halo", "host_memory"}, {"sync", "blocking"}},
                         .tunings = {},
                         .make_float = &make<float>,
                         .make_double = &make<double>}};

}  // namespace
}  // namespace nsb
