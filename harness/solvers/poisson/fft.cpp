// Direct solves of the Poisson family (fft_solve.hpp, docs/solvers/poisson_fft.md): methods `fft`
// (a transform on every axis) and `fft2_tridiag` (transforms in x and z, a Thomas solve in y: Ha et
// al.'s structure), each running its own stage kind (poisson/fft, poisson/fft2_tridiag) on the
// solver's equation. One solve, no iteration: with a tolerance the method checks its result with one
// sweep of the solver's own stage and reports the residual (the cost of one sweep and a reduction).
//
// Refused (std::invalid_argument, on the first solve, before any step is timed): a decomposed
// equation (a rank's slab: the transforms need whole lines), a face pair no transform fits (mixed
// neumann/dirichlet, periodic with another type), periodic y faces for fft2_tridiag.
#include <algorithm>
#include <stdexcept>

#include "poisson/fft_solve.hpp"
#include "recipe.hpp"

namespace nsb {
namespace {

template <class T>
class DirectSolve final : public PoissonMethod<T> {
 public:
  DirectSolve(const PoissonSettings& s, const char* name, bool tridiagonal)
      : s_(s), name_(name), stage_id_(std::string("poisson/") + name), tridiagonal_(tridiagonal) {}

  PoissonReport solve(PoissonSystem<T>& system) override {
    const PoissonEquation<T> e = system.equation();
    if (!stage_.variant) prepare(e);
    PoissonDirectCall<T> c;
    c.grid = e.grid;
    c.faces = e.faces;
    c.p = e.p;
    c.rhs = e.rhs;
    c.rhs_scale = e.rhs_scale;
    c.y_faces = e.y_faces;
    c.y_ranks = e.y_ranks, c.y_exact = e.y_exact, c.y_factors_shared = e.y_factors_shared;
    c.phases = e.phases;
    c.y_slab = e.y_slab;
    c.z_slab = e.z_slab;
    c.workspace = &workspace_;
    c.tuning = stage_.tuning;
    c.exec = e.exec;
    stage_.variant->template fn<PoissonDirectCall<T>>()(c);

    PoissonReport r;
    r.iterations = 1;
    if (s_.tolerance > 0) {  // the result's residual, by the solver's own sweep (not accepted)
      const double rhs = system.rhs_rms();
      system.sweep();
      r.absolute_residual = system.sweep_residual_rms();
      r.relative_residual = rhs > 0 ? r.absolute_residual / rhs : r.absolute_residual;
    }
    return r;
  }

 private:
  // The first solve: the equation is checked and the stage's kernel chosen (plans are built by the
  // variant on its first call, in workspace_).
  void prepare(const PoissonEquation<T>& e) {
    if (e.z_slab.comm && (!tridiagonal_ || e.y_ranks > 1 || e.y_slab.comm))
      throw std::invalid_argument("Poisson method " + name_ + " on a real z-slab rank (fracstep V1): fft2_tridiag only, y whole");
    if (e.decomposed && !e.y_slab.comm)
      throw std::invalid_argument("Poisson method " + name_ + " cannot solve a decomposed equation (a rank's slab): " +
                                  "its transforms need whole lines; run it on one rank");
    if (const std::string why = direct_solve_refusal(e.faces, tridiagonal_, e.y_faces != nullptr); !why.empty())
      throw std::invalid_argument("Poisson method " + name_ + " refuses " + why);
    if (e.y_slab.comm && !tridiagonal_)
      throw std::invalid_argument("Poisson method " + name_ + " on a real y-slab rank: fft2_tridiag only (its y lines split "
                                  "over the ranks; fft transforms y)");
    if (e.y_ranks > 1 && (!tridiagonal_ || e.y_ranks > kPptMaxRanks || (e.y_slab.comm ? e.y_slab.rows : e.grid.ny) < 2 * e.y_ranks))
      throw std::invalid_argument("Poisson method " + name_ + " cannot split y over " + std::to_string(e.y_ranks) +
                                  " virtual ranks (fft2_tridiag only, at most 8, 2 rows a rank)");
    const auto choice = s_.kernels.find(stage_id_);
    stage_ = resolve_stage_choice(stage_id_, e.exec.backend, choice == s_.kernels.end() ? "" : choice->second);
  }

  PoissonSettings s_;
  std::string name_, stage_id_;
  bool tridiagonal_;
  ResolvedStage stage_;
  DirectSolveWorkspace workspace_;
};

template <class T>
std::unique_ptr<PoissonMethod<T>> make_fft(const PoissonSettings& s) {
  return std::make_unique<DirectSolve<T>>(s, "fft", false);
}
template <class T>
std::unique_ptr<PoissonMethod<T>> make_fft2_tridiag(const PoissonSettings& s) {
  return std::make_unique<DirectSolve<T>>(s, "fft2_tridiag", true);
}

// Workspace (variants/poisson/fft/): the line variants hold two complex arrays (4 real ones) and cuFFT's
// plan work areas (at most one more complex array); the real-to-complex one less. fft2_tridiag adds
// its Thomas scratch (up to 3 arrays with virtual y ranks).
constexpr double kFftArrays = 6;
const PoissonMethodRegistrar fft_reg{
    {"fft", "direct solve: Fourier/cosine/sine transform per axis (periodic/neumann/dirichlet pairs), division by the "
            "discrete eigenvalues, transforms back (cuFFT on the GPU); one rank, uniform grid",
     &make_fft<float>, &make_fft<double>, kFftArrays}};
const PoissonMethodRegistrar fft2_tridiag_reg{
    {"fft2_tridiag", "direct solve: transforms in x and z, a Thomas solve per (kx, kz) line in y (Ha et al.); y faces "
                     "neumann or dirichlet; a stretched y (PoissonEquation::y_faces) in its rows; one rank",
     &make_fft2_tridiag<float>, &make_fft2_tridiag<double>, kFftArrays + 3}};

}  // namespace
}  // namespace nsb
