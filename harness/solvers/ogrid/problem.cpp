// The grid generator as the executor sees it (SolverDef ogrid): cases naca0012_grid (the paper's Fig. 9)
// and flat_plate_grid, --grid NXxNYx1, one step = one Jacobi sweep; validation: the grid's distance
// from the discrete elliptic solution (the largest change one more sweep in double would make) and its
// smallest Jacobian (positive: no folded cell).
#include <cmath>
#include <stdexcept>

#include "case_checks.hpp"
#include "ogrid/time_loop.hpp"

namespace nsb {
namespace {

GridCase make_grid_case(const CaseOptions& o) {
  const std::string name = o.name.empty() ? "naca0012_grid" : o.name;
  if (name != "naca0012_grid" && name != "flat_plate_grid")
    throw std::invalid_argument("unknown case '" + name + "' for the ogrid solver; known cases: naca0012_grid, flat_plate_grid");
  if (o.nz != 1) throw std::invalid_argument("the grid generator is 2D: give --grid NXxNYx1");
  if (o.re != CaseOptions{}.re || o.dt != 0 || o.gamma != 0)
    throw std::invalid_argument("--re, --dt and --gamma have no meaning for grid generation");
  refuse_unused_case_options(o, "ogrid", {"safety"}, "grid generation has no time step");
  case_params(o, {});  // its cases have no settings of their own
  GridSpec spec;
  spec.body = name == "flat_plate_grid" ? Body::plate : Body::airfoil;
  spec.nx = o.nx, spec.ny = o.ny;
  spec.wall_spacing = 0.25 / std::sqrt(5000.0);  // the paper's NACA0012 case, Re 5000 (Fig. 11)
  GridCase c;
  c.name = name;
  c.geo = algebraic_grid(spec);
  grid_controls(c.geo, c.phi, c.psi_c);
  return c;
}

class GridProblem final : public ProblemImpl<GridProblem> {
 public:
  explicit GridProblem(const CaseOptions& o) : case_(make_grid_case(o)) {}

  const Grid& grid() const override { return case_.geo.grid; }
  bool periodic_z() const override { return false; }
  double dt() const override { return 1; }
  nlohmann::json describe() const override {
    const GridSpec& s = case_.geo.spec;
    return {{"case", case_.name}, {"relax", case_.relax}, {"wall_spacing", s.wall_spacing},
            {"far_radius", s.far_radius}, {"controls", "Thomas-Middlecoff"}};
  }
  void check_options(const SolverOptions& o) const override {
    const SolverOptions d;
    if (o.scheme != d.scheme || o.jacobi_iterations != d.jacobi_iterations || o.jacobi_tol != d.jacobi_tol ||
        o.poisson_method != d.poisson_method)
      throw std::runtime_error("grid generation: one step is one sweep; --steps sets their number");
  }

  template <class T>
  HostState<T> initial() const {
    const Geometry& g = case_.geo;
    return HostState<T>{g.grid, {{"x", std::vector<T>(g.x.begin(), g.x.end())}, {"y", std::vector<T>(g.y.begin(), g.y.end())}}};
  }
  template <class T>
  std::unique_ptr<Solver<T>> solver(const ResolvedRecipe& r, const SolverOptions& o, const RankContext* ctx) const {
    if (ctx && ctx->decomposed()) throw std::runtime_error("the ogrid solver runs on one rank");
    return std::make_unique<GridSolver<T>>(case_, r, o);
  }
  template <class T>
  nlohmann::json check(const HostState<T>& s, bool) const {
    const Grid& g = case_.geo.grid;
    const std::vector<double> x(s.field("x").begin(), s.field("x").end()), y(s.field("y").begin(), s.field("y").end());
    double change = 0;
    for (int j = 1; j <= g.ny; ++j)
      for (int i = 1; i <= g.nx; ++i) {
        const std::size_t n = sv_node(g, i, j);
        double xn, yn;
        change = std::max(change, grid_point(At<double>{x.data() + n, g.sy()}, At<double>{y.data() + n, g.sy()},
                                             case_.phi[n], case_.psi_c[n], 1.0, xn, yn));
      }
    double min_jacobian = 1e300;
    std::string folded;
    try {
      const Metrics m = grid_metrics(g, x, y, case_.geo.ends);
      for (int j = 1; j <= g.ny; ++j)
        for (int i = 1; i <= g.nx; ++i) min_jacobian = std::min(min_jacobian, 1 / m.ij[sv_node(g, i, j)]);
    } catch (const std::runtime_error& e) {
      min_jacobian = -1;  // folded
      folded = e.what();
    }
    return {{"kind", "elliptic_residual"},
            {"detail", "largest |r* - r| of one more Jacobi sweep in double (w = 1); min_jacobian > 0: no folded cell"},
            {"max_error", change}, {"rms_error", change}, {"min_jacobian", min_jacobian}, {"folded", folded}, {"steps", s.step}};
  }
  template <class T>
  std::size_t bytes(const Grid& g, const SolverOptions&) const {
    return GridSolver<T>::device_bytes(g);
  }

 private:
  GridCase case_;
};

const SolverRegistrar reg{SolverDef{
    .name = "ogrid",
    .description = "Gohari et al. (2012) Sec. 2.1: elliptic O-grid generation (over-relaxed Jacobi on the transformed "
                   "Poisson grid equations), one sweep a step",
    .cases = {"naca0012_grid", "flat_plate_grid"},
    .sections = {"sweep"},
    .stages = {"sweep"},
    .make_problem = [](const CaseOptions& o) -> std::unique_ptr<Problem> { return std::make_unique<GridProblem>(o); },
}};

}  // namespace
}  // namespace nsb
