// The wave solver of Thibault (2009), Sec. 3.1 and Fig. 3.2, one time step:
//
//   u_next = 2 u - u_prev + rho^2 (neighbours - 4 u)    step   (one kernel: wave/step, Eq. 2.8)
//   ghost rows of u_next from the neighbour ranks        halo   (decomposed runs, Sec. 3.1.4)
//   u_prev <- u, u <- u_next, u_next <- u_prev           (the pointers rotate; nothing is copied)
//
// The step is whichever wave/step variant the recipe chose; the solver owns the three arrays and the
// order. The boundary nodes (rows and columns 0 and n + 1 of the whole grid) are 0 in all three arrays
// from load() on and no variant writes them: they are the Dirichlet condition u = 0.
//
// In a decomposed run each rank owns a stripe of rows (its slab's grid) and a halo variant fills the
// ghost row on each side that has a neighbour after every step (a whole z plane: three rows of nx + 2
// values, of which the middle one holds the nodes; formulas.hpp).
// An overlapping exchange has the two edge rows computed first and sent while the interior is.
#pragma once

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "device.hpp"
#include "fields.hpp"
#include "halo.hpp"
#include "nvtx.hpp"
#include "solver_base.hpp"
#include "wave/case.hpp"
#include "wave/stage_call.hpp"

namespace nsb {

// Timing sections, in SolverDef::sections order.
enum WaveSection : int { kWaveStepSection = 0, kWaveHaloSection = 1 };
inline std::vector<std::string> wave_sections() { return {"step", "halo"}; }

template <class T>
class WaveSolver final : public SolverBase<T> {
  using Base = SolverBase<T>;
  using Base::stream_, Base::timer_, Base::step_, Base::time_, Base::begin, Base::end, Base::timed, Base::sync;

 public:
  // `local` is the grid of this rank's slab (the whole grid without a decomposition).
  WaveSolver(const WaveCase& c, const Grid& local, const ResolvedRecipe& r, const SolverOptions& o,
             const RankContext* rank)
      : Base(c.dt), case_(c), grid_(local), recipe_(r), stage_(&recipe_["step"]),
        fields_(local.padded_points(), r.backend == Backend::cuda) {
    for (const char* name : {"u_prev", "u", "u_next"}) fields_.add(name);
    if (r.backend == Backend::cuda) stream_ = device::stream_create();
    call_.grid = local;
    call_.rho2 = T(c.rho() * c.rho());
    call_.tuning = stage_->tuning;
    call_.exec = Exec{r.backend, o.threads, stream_, nullptr, 0};
    point_at_fields();
    if (rank && rank->decomposed()) {
      comm_ = rank->comm;
      slab_ = rank->slab();
      RankContext mine = *rank;
      mine.grid = local, mine.stream = stream_;
      halo_ = rank->halo->template factory<T>()(mine);
      halo_->attach(fields_.pointers());
    }
  }
  ~WaveSolver() override {
    halo_.reset();  // before the stream it may use
    if (stream_) device::stream_destroy(stream_);
  }
  WaveSolver(const WaveSolver&) = delete;
  WaveSolver& operator=(const WaveSolver&) = delete;

  // Bytes of a solver of grid g on the GPU: the three time levels.
  static std::size_t device_bytes(const Grid& g) { return 3 * g.padded_points() * sizeof(T); }

  void load(const HostState<T>& s) override {
    point_at_fields();
    fields_.upload("u_prev", s.field("u_prev"));
    fields_.upload("u", s.field("u"));
    fields_.zero("u_next");  // its boundary nodes: u = 0
    step_ = s.step;
    time_ = s.time;
    energy_at_load_ = energy(s);
    sync();
    // A neighbour that loads faster must not push its first halo into arrays this rank is still loading.
    if (comm_) comm_->barrier();
  }

  HostState<T> save() const override {
    sync();
    HostState<T> s{grid_, {}, step_, time_};
    s.fields.emplace_back("u_prev", fields_.buffer_of(prev_).download());
    s.fields.emplace_back("u", fields_.buffer_of(now_).download());
    return s;
  }

  void step() override {
    if (timer_) timer_->set_step(step_);
    NvtxRange step_range("step");
    begin(kStepSection);
    compute_and_exchange(
        halo_.get(), grid_.nz, {next_}, [&](ZRange zr) { compute(zr); },
        [&](const auto& work) { this->timed(kWaveStepSection, stage_->variant->id().c_str(), work); },
        [&](const auto& work) { this->timed(kWaveHaloSection, "halo", work); });
    std::tie(prev_, now_, next_) = std::tuple(now_, next_, prev_);  // thesis Fig. 3.2
    end(kStepSection);
    ++step_;
    time_ += case_.dt;
  }

  // The energy (case.hpp) now, its drift since load(), and the largest |u|: a drift beyond rounding
  // means a wrong step, boundary or halo row.
  nlohmann::json final_checks() override {
    const HostState<T> s = save();
    const double e = energy(s);
    double max_abs = 0;
    for (T v : s.field("u")) max_abs = std::max(max_abs, double(std::abs(v)));
    if (comm_) max_abs = comm_->allreduce_max(max_abs);
    return {{"energy", e}, {"energy_relative_drift", (e - energy_at_load_) / energy_at_load_}, {"max_abs_u", max_abs}};
  }
  WorkModel work_model(int section) const override {
    return section == kWaveStepSection ? wave_step_model(grid_, ZRange::interior(grid_), int(sizeof(T))) : WorkModel{};
  }
  // One z plane (three rows of nx + 2 values) to each neighbour.
  double halo_bytes_per_call(int section) const override {
    if (section != kWaveHaloSection || !halo_) return 0;
    return double(plane_elems(grid_)) * sizeof(T) * (int(slab_.has_lo()) + int(slab_.has_hi()));
  }
  nlohmann::json halo_description() const override { return halo_ ? halo_->describe() : nlohmann::json::object(); }

  int steps_per_graph() const override { return 3; }  // three rotations bring every pointer back

 private:
  void point_at_fields() { prev_ = fields_["u_prev"], now_ = fields_["u"], next_ = fields_["u_next"]; }
  // u_next on rows zr.
  void compute(ZRange zr) {
    call_.zr = zr;
    call_.u_prev = prev_, call_.u = now_, call_.u_next = next_;
    stage_->variant->template fn<WaveCall<T>>()(call_);
  }
  // The whole grid's energy (a collective in a decomposed run).
  double energy(const HostState<T>& s) const {
    const double e = wave_energy(case_, grid_, s.field("u_prev"), s.field("u"), !slab_.has_lo());
    return comm_ ? comm_->allreduce_sum(e) : e;
  }

  WaveCase case_;
  Grid grid_;
  ResolvedRecipe recipe_;
  const ResolvedStage* stage_;
  FieldSet<T> fields_;
  T *prev_ = nullptr, *now_ = nullptr, *next_ = nullptr;  // u^{t-1}, u^t, u^{t+1}
  WaveCall<T> call_;
  Communicator* comm_ = nullptr;  // decomposed runs: sums the energy over the ranks
  Slab slab_;                     // this rank's rows (an undecomposed run: the whole grid, no neighbours)
  std::unique_ptr<HaloExchange<T>> halo_;
  double energy_at_load_ = 0;
};

}  // namespace nsb
