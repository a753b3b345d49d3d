// Stage kinds: one step of a solver with one interface, registered from its solver's own folder.
//
//   StageKind k;
//   k.solver = "wave", k.name = "step", k.summary = "u_next = 2u - u_prev + rho^2 lap u";
//   k.reads = {"u_prev", "u"}, k.writes = {"u_next"};
//   k.tuning_axes = {"bx", "by", "sz"};
//   k.tag_vocabulary = {{"memory", {"global", "shared", "register"}}, {"cta", {"2d"}}};
//   k.default_gpu_variant = "global_2d";
//   k.flops_per_point = [](const std::string&) { return 9.0; };  // counted from the formula
//   set_fixture<WaveStepFixture>(k);
//   static const nsb::StageKindRegistrar kind{k};   (harness/solvers/<solver>/stages.cpp)
//
// A stage kind says what it reads and writes, its work model (through its fixture), its tolerance,
// how `verify` and `stages` build its inputs (the fixture), the tuning axes its variants may use and
// the tag vocabulary they may declare. `nsbench verify`, `nsbench stages`, nsbench-micro and
// `nsbench list` work from this alone: none of them names a stage.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "grid.hpp"
#include "registry.hpp"

namespace nsb {

// The fewest bytes a call must move (each input read once, each output written once) and the
// floating-point operations it does, as written in the shared formulas.
struct WorkModel {
  double points = 0;  // grid points the call updates
  double bytes = 0;   // minimal bytes moved
  double flops = 0;   // floating-point operations as written in the formulas
};

// What a fixture is for: `verify` fills the inputs on the host from a seed (CPU and GPU fixtures of
// one seed hold the same values) and uses boundary conditions that exercise every rule; `bench`
// fills them on the device and uses the solver's typical set-up.
struct FixtureSpec {
  std::string stage;  // the stage kind's name within its solver (a solver may share one fixture class)
  Grid grid;
  Backend backend = Backend::cuda;
  std::string workload;  // one of the kind's workloads ("" when it has one)
  unsigned seed = 1;
  bool verify = false;
};

// One stage kind's inputs and outputs on one grid, in one precision, on one backend, wired to the
// solver's call structure: the generic tools run any variant of the kind on it.
template <class T>
class StageFixture {
 public:
  virtual ~StageFixture() = default;
  // One call of variant v with tuning t on the fixture's arrays (enqueued on stream() for GPU variants).
  virtual void run(const Variant& v, const Tuning& t) = 0;
  // Every array of the fixture, read back (verify compares them all, so stray writes show).
  virtual std::vector<std::pair<std::string, std::vector<T>>> arrays() const = 0;
  // A scalar result (reductions), read back; NaN for kinds without one.
  virtual double scalar() const { return 0.0 / 0.0; }
  // The work of one call on this fixture's grid.
  virtual WorkModel model() const = 0;
  virtual void* stream() const { return nullptr; }
  // Named parts of a call that the kind's variants time themselves (a transpose's pack, all-to-all and
  // unpack: TransposeCall::timer), for `nsbench stages`: phase_reset() before the timed calls, then the
  // seconds of each part of every call since, by name. None for kinds without parts.
  virtual void phase_reset() {}
  virtual std::vector<std::pair<std::string, std::vector<double>>> phase_seconds() { return {}; }
};

template <class T>
using FixtureFactory = std::function<std::unique_ptr<StageFixture<T>>(const FixtureSpec&)>;

struct StageKind {
  std::string solver;
  std::string name;
  std::string summary;
  std::vector<std::string> reads, writes;  // field names, as the solver's field set names them
  std::vector<std::string> workloads = {""};  // inputs verify and bench run separately (e.g. time schemes)
  // Workloads only the variants carrying a tag run: workload -> {tag key, value} (projection's pressure
  // "obstacles", the masked sweep, runs only on variants tagged obstacles=masked).
  std::map<std::string, std::pair<std::string, std::string>> workload_requires_tag;
  std::vector<std::string> tuning_axes;       // of kTuningAxes
  std::map<std::string, std::vector<std::string>> tag_vocabulary;  // tag key -> allowed values
  // Tolerance of verify, relative to the largest reference value: `ulps` units of roundoff of the
  // precision (rounding differences only); `absolute_double` when the kind computes in double whatever
  // the precision (reductions); a kind whose variants may reorder sums says so through Determinism.
  double tolerance_ulps = 32;
  double tolerance_absolute = 0;  // > 0: this relative tolerance whatever the precision
  bool scalar_output = false;     // verify compares scalar() (and checks bitwise repeatability)
  std::string default_gpu_variant;  // what a GPU recipe that leaves this stage out runs ("" = required)
  std::function<double(const std::string& workload)> flops_per_point;
  // The grids verify runs are odd 3D ones; a kind whose fields have another shape (a 2D solver's)
  // maps each to one of its own (null: as they are).
  std::function<Grid(const Grid&)> verify_grid;
  FixtureFactory<float> fixture_float;
  FixtureFactory<double> fixture_double;

  std::string id() const { return solver + "/" + name; }
  // Whether variant v runs workload w (workload_requires_tag).
  bool runs(const Variant& v, const std::string& w) const {
    const auto it = workload_requires_tag.find(w);
    if (it == workload_requires_tag.end()) return true;
    const auto tag = v.tags.find(it->second.first);
    return tag != v.tags.end() && tag->second == it->second.second;
  }
  template <class T>
  const FixtureFactory<T>& fixture() const {
    if constexpr (sizeof(T) == sizeof(float)) return fixture_float;
    else return fixture_double;
  }
  template <class T>
  double tolerance() const {
    if (tolerance_absolute > 0) return tolerance_absolute;
    return tolerance_ulps * (sizeof(T) == 4 ? 1.2e-7 : 2.2e-16);
  }
};

class StageKindRegistry {
 public:
  static StageKindRegistry& instance();
  void add(StageKind k);
  const std::vector<StageKind>& all() const { return kinds_; }
  const StageKind* find(const std::string& id) const;
  // Throws std::runtime_error naming the known stage kinds.
  const StageKind& get(const std::string& id) const;
  std::vector<const StageKind*> of_solver(const std::string& solver) const;

 private:
  std::vector<StageKind> kinds_;
};

struct StageKindRegistrar {
  explicit StageKindRegistrar(StageKind k) { StageKindRegistry::instance().add(std::move(k)); }
};

// The factory pair of a fixture class template Fx<T> constructible from a FixtureSpec.
template <template <class> class Fx>
void set_fixture(StageKind& k) {
  k.fixture_float = [](const FixtureSpec& s) -> std::unique_ptr<StageFixture<float>> { return std::make_unique<Fx<float>>(s); };
  k.fixture_double = [](const FixtureSpec& s) -> std::unique_ptr<StageFixture<double>> { return std::make_unique<Fx<double>>(s); };
}

}  // namespace nsb
