// The halo stage kind: how ghost planes move between the ranks of a z-slab decomposition.
//
// Like every stage kind it has its own interface and self-registering variants (variants/halo/ for
// GPUs, reference_cpu/halo_*.cpp for host memory), ids "halo/<name>", tags and tunings; unlike the
// compute stages a halo variant keeps state (host buffers, peer mappings, streams, communicators), so
// the registry holds a factory per precision instead of a plain function.
//
// A solver calls the exchange where its scheme needs fresh ghost planes (the projection solver where
// the thesis does, Sec. 3.2.3: velocity after the predictor and after the correction, pressure after
// every Jacobi sweep; the wave solver after every step). Each call fills the ghost planes of the
// given fields on every side that has a neighbour with the neighbour's edge plane (plane 1 goes down
// into the lower rank's plane nz+1, plane nz goes up into the upper rank's plane 0); the solver then
// applies its own ghost rules, which leave faces cut by the decomposition alone (except the Poisson
// family's cg and pcg, which write a cut face's ghosts as a periodic wrap just before exchanging them).
// So a variant's writes into a rank's ghost planes come after everything that rank issued before the
// call (its stream's work included): a peer push ordered on the sender's stream alone can land before
// the receiver's own ghost writes and be overwritten (p2p_*: NeighboursReady). A variant that overlaps
// (overlaps() == true) is called as start() once the edge planes are computed and finish() after the
// interior: the compute stages run the two regions separately through StageCall::zr.
#pragma once

#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "rank_context.hpp"
#include "stage.hpp"

namespace nsb {

template <class T>
class HaloExchange {
 public:
  virtual ~HaloExchange() = default;
  // The solver's field arrays, in the same order on every rank (called once, by every rank).
  virtual void attach(const std::vector<T*>& buffers) { (void)buffers; }
  // Fills the neighbour ghost planes of `fields`; done (in stream order, or on return) when it returns.
  virtual void exchange(const std::vector<T*>& fields) = 0;
  virtual bool overlaps() const { return false; }
  // Overlapping variants: start() once the edge planes are computed; finish() makes the compute
  // stream wait until the ghost planes have arrived.
  virtual void start(const std::vector<T*>& fields) { exchange(fields); }
  virtual void finish() {}
  // What the run should record about this exchange (peer access, host memory kind, ...).
  virtual nlohmann::json describe() const { return nlohmann::json::object(); }
};

template <class T>
using HaloFactory = std::unique_ptr<HaloExchange<T>> (*)(const RankContext&);

struct HaloVariant {
  std::string name;
  Backend backend = Backend::cuda;  // cuda: device arrays; cpu_serial: host arrays (any CPU backend)
  std::string driver;               // "threads" (ranks share one process) or "mpi"
  std::map<std::string, std::string> tags;
  std::vector<Tuning> tunings;      // the first one is the default
  HaloFactory<float> make_float = nullptr;
  HaloFactory<double> make_double = nullptr;

  std::string id() const { return "halo/" + name; }
  template <class T>
  HaloFactory<T> factory() const {
    if constexpr (sizeof(T) == sizeof(float)) return make_float;
    else return make_double;
  }
  const Tuning* find_tuning(const std::string& n) const {
    for (const Tuning& t : tunings)
      if (t.name == n) return &t;
    return nullptr;
  }
};

class HaloRegistry {
 public:
  static HaloRegistry& instance();
  void add(HaloVariant v);
  const std::vector<HaloVariant>& all() const { return variants_; }
  const HaloVariant* find(const std::string& name) const;
  // Throws std::runtime_error listing the known halo variants.
  const HaloVariant& get(const std::string& name) const;

 private:
  std::vector<HaloVariant> variants_;
};

struct HaloRegistrar {
  explicit HaloRegistrar(HaloVariant v) { HaloRegistry::instance().add(std::move(v)); }
};

// A compute stage whose output's ghost planes come from the neighbours, on a rank of nz interior z
// planes: compute(zr) computes planes zr. An overlapping exchange computes the two edge planes first,
// sends them while the interior is computed and waits last, so the halo section's time is the exposed
// part of the exchange only; any other exchange runs after the whole stage. stage_section(work) and
// halo_section(work) run `work` inside the solver's timed (and NVTX) sections. halo may be null (one
// rank): the stage alone.
template <class T, class Compute, class StageSection, class HaloSection>
void compute_and_exchange(HaloExchange<T>* halo, int nz, const std::vector<T*>& fields, const Compute& compute,
                          const StageSection& stage_section, const HaloSection& halo_section) {
  const bool overlap = halo && halo->overlaps() && nz >= 3;
  stage_section([&] {
    if (!overlap) return compute(ZRange{1, nz + 1});
    compute(ZRange{1, 2}), compute(ZRange{nz, nz + 1});
    halo->start(fields);
    compute(ZRange{2, nz});
  });
  if (!halo) return;
  halo_section([&] {
    if (overlap) halo->finish();
    else halo->exchange(fields);
  });
}

// Which of the solver's arrays a field pointer is (variants that address a neighbour's copy of it).
template <class T>
std::size_t buffer_index(const std::vector<T*>& buffers, const T* field) {
  for (std::size_t i = 0; i < buffers.size(); ++i)
    if (buffers[i] == field) return i;
  throw std::logic_error("halo exchange: a field that is not one of the solver's arrays");
}

// Address of padded plane k (0 .. nz+1) of a field.
template <class T>
T* plane(T* field, const Grid& g, int k) {
  return field + plane_offset(g, k);
}

}  // namespace nsb
