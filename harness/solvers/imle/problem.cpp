// The IMLE solver as the executor sees it: its cases, sections and stages (SolverDef), and a case set up
// for runs (ImleProblem: initial state, the solver, validation, the cavity's centre lines). Its case
// names are the projection solver's too, so a run names the solver: `nsbench run --solver imle`.
//
// Cases (cell-centred unknowns; the ghost layer holds the walls' velocity, imle/time_loop.hpp):
//   cavity        the paper's 3D lid-driven cavity (Sec. 4.1): the unit cube, no-slip walls, the lid at
//                 z = 1 moving with u = 1 in +x (the notes infer the plane and direction from the paper's
//                 centre lines), rho = 1, Re = 1 / nu; the lid's ghosts are the z = 1 plane's points
//                 above interior cells (its edges belong to the resting walls). Validation: none tabulated
//                 (the paper plots Lo et al. 2005 and Shu et al. 2003); the centre lines u(z) on
//                 x = y = 1/2 and w(x) on y = z = 1/2 go to --output (DIR/final_centre_lines.csv).
//   taylor_green  the 2D Taylor-Green vortex u = sin x cos z, w = -cos x sin z, v = 0, decaying as
//                 exp(-2 nu t) (pressure (cos 2x + cos 2z) exp(-4 nu t) / 4), in the box [0, pi]^2 of x, z
//                 and a span ly = ny pi / nx in y: the stages have walls only, so the walls move with the
//                 exact solution (Dirichlet, rewritten every step); dp/dn = 0 on them holds exactly, so
//                 the solver's Neumann pressure is the exact one's. Validation: max and RMS error of
//                 u, v, w against the exact solution at the final time.
// Time step: --dt, else --safety x the smaller of the explicit diffusion limit with CC-CCD's largest
// second-derivative eigenvalue 9.6 / h^2 (the interior rows at the grid's shortest wave: b (1 + 1/4) =
// -12 phi; 2 / (nu sum 9.6 / h^2)) and half a cell's travel at the reference speed 1 (a particle stays
// inside the MLS neighbourhood of its origin).
#include <algorithm>
#include <cmath>
#include <fstream>
#include <numbers>
#include <stdexcept>

#include "imle/time_loop.hpp"

namespace nsb {
namespace {

enum class ImleCase { cavity, taylor_green };

ImleCase parse_case(const std::string& name) {
  if (name.empty() || name == "cavity") return ImleCase::cavity;
  if (name == "taylor_green") return ImleCase::taylor_green;
  throw std::invalid_argument("imle: no case '" + name + "' (cavity, taylor_green)");
}

double imle_stable_dt(const Grid& g, double nu, double safety) {
  const double sum = 9.6 * (1 / (g.dx() * g.dx()) + 1 / (g.dy() * g.dy()) + 1 / (g.dz() * g.dz()));
  return safety * std::min(2 / (nu * sum), 0.5 * std::min({g.dx(), g.dy(), g.dz()}));
}

// Position of padded index i along an axis of n cells and length l: the wall at a ghost, else the centre.
double position(int i, int n, double l) { return i == 0 ? 0.0 : i == n + 1 ? l : (i - 0.5) * l / n; }

// Linear interpolation of a padded line of values (walls at the ends) at position x.
double along(const std::vector<double>& v, int n, double l, double x) {
  int m = 1;
  while (m < n + 1 && position(m, n, l) < x) ++m;  // position(m - 1) < x <= position(m)
  const double x0 = position(m - 1, n, l), x1 = position(m, n, l);
  return v[std::size_t(m - 1)] + (x - x0) / (x1 - x0) * (v[std::size_t(m)] - v[std::size_t(m - 1)]);
}

class ImleProblem final : public ProblemImpl<ImleProblem> {
 public:
  explicit ImleProblem(const CaseOptions& o) : case_(parse_case(o.name)), re_(o.re) {
    if (o.nx < 3 || o.ny < 3 || o.nz < 3) throw std::invalid_argument("imle: the grid needs at least 3 cells an axis");
    if (!(o.re > 0)) throw std::invalid_argument("imle: --re must be positive");
    if (o.gamma != 0) throw std::invalid_argument("imle: --gamma (upwinding) has no meaning here");
    if (!(o.safety > 0 && o.safety <= 1))  // a negative step runs the flow backwards in time
      throw std::invalid_argument("imle: --safety must lie in (0, 1], not " + std::to_string(o.safety));
    // The paths between the ranks of a decomposed run (imle_ranks.hpp); one rank has none to choose.
    const auto params = case_params(o, {"ccd_z", "rank_sums"});
    if (params.count("ccd_z")) paths_.ccd_z = ImleRankPaths::parse("ccd_z", params.at("ccd_z"));
    if (params.count("rank_sums")) paths_.sums = ImleRankPaths::parse("rank_sums", params.at("rank_sums"));
    grid_.nx = o.nx, grid_.ny = o.ny, grid_.nz = o.nz;
    if (case_ == ImleCase::cavity) {
      grid_.lx = grid_.ly = grid_.lz = 1.0;
    } else {
      grid_.lx = grid_.lz = std::numbers::pi;
      grid_.ly = o.ny * std::numbers::pi / o.nx;
    }
    prm_.nu = 1.0 / o.re;
    prm_.rho = 1.0;
    prm_.dt = o.dt > 0 ? o.dt : imle_stable_dt(grid_, prm_.nu, o.safety);
  }

  const Grid& grid() const override { return grid_; }
  bool periodic_z() const override { return false; }
  double dt() const override { return prm_.dt; }
  nlohmann::json describe() const override {
    return {{"case", case_ == ImleCase::cavity ? "cavity" : "taylor_green"}, {"re", re_}, {"nu", prm_.nu},
            {"rho", prm_.rho}, {"dt", prm_.dt}, {"domain", {grid_.lx, grid_.ly, grid_.lz}},
            {"velocity_scale", 1.0},  // the lid's speed, the vortex's amplitude
            {"time_scheme", "explicit Euler diffusion (CC-CCD), Lagrangian move, MLS, PPE (Liu et al. 2019, Alg. 1)"}};
  }
  void check_options(const SolverOptions& o) const override {
    if (imle_poisson_method(o) == "fft2_tridiag")
      throw std::runtime_error("imle: fft2_tridiag needs periodic x and z faces; the IMLE box has walls only");
  }

  template <class T>
  HostState<T> initial() const {
    HostState<T> s{grid_, {}, 0, 0.0};
    for (const std::string& name : ImleSolver<T>::state_names())
      s.fields.emplace_back(name, std::vector<T>(grid_.padded_points(), T(0)));
    const char* vel[3] = {"u", "v", "w"};
    for (int k = 0; k <= grid_.nz + 1; ++k)
      for (int j = 0; j <= grid_.ny + 1; ++j)
        for (int i = 0; i <= grid_.nx + 1; ++i) {
          const double x = position(i, grid_.nx, grid_.lx), y = position(j, grid_.ny, grid_.ly),
                       z = position(k, grid_.nz, grid_.lz);
          for (int c = 0; c < 3; ++c) s.field(vel[c])[grid_.idx(i, j, k)] = T(initial_velocity(c, i, j, k, x, y, z));
          if (case_ == ImleCase::taylor_green) s.field("p")[grid_.idx(i, j, k)] = T(taylor_green_p(x, z, 0.0));
        }
    return s;
  }
  template <class T>
  std::unique_ptr<Solver<T>> solver(const ResolvedRecipe& r, const SolverOptions& o, const RankContext* ctx) const {
    if (ctx && ctx->decomposed() && case_ == ImleCase::taylor_green)
      throw std::runtime_error("imle: taylor_green runs on one rank (its moving walls are rewritten through the host "
                               "on the whole grid); the cavity runs on several");
    ImleWallFunction walls;
    if (case_ == ImleCase::taylor_green)
      walls = [nu = prm_.nu](int c, double x, double, double z, double t) { return taylor_green_u(c, x, z, t, nu); };
    return std::make_unique<ImleSolver<T>>(grid_, prm_, r, o, walls, ctx, paths_);
  }
  template <class T>
  nlohmann::json check(const HostState<T>& s, bool) const {
    if (case_ == ImleCase::cavity)
      return {{"kind", "none"},
              {"detail", "the paper tabulates no 3D data; centre lines: --output, compared with the projection solver "
                         "and (Re 1000, steady) Albensoeder & Kuhlmann 2005 by scripts/liu-cavity-check"}};
    double max_err = 0, sum2 = 0;
    const char* vel[3] = {"u", "v", "w"};
    for (int k = 1; k <= grid_.nz; ++k)
      for (int j = 1; j <= grid_.ny; ++j)
        for (int i = 1; i <= grid_.nx; ++i)
          for (int c = 0; c < 3; ++c) {
            const double e = double(s.field(vel[c])[grid_.idx(i, j, k)]) -
                             taylor_green_u(c, (i - 0.5) * grid_.dx(), (k - 0.5) * grid_.dz(), s.time, prm_.nu);
            max_err = std::max(max_err, std::abs(e)), sum2 += e * e;
          }
    return {{"kind", "exact"}, {"max_error", max_err}, {"rms_error", std::sqrt(sum2 / (3.0 * grid_.interior_points()))}};
  }
  template <class T>
  std::size_t bytes(const Grid& g, const SolverOptions& o) const {
    // what CG's chosen kernels keep themselves (--stage poisson/...: a library's compact vectors), on the rank's grid
    const auto kernels = std::size_t(poisson_kernels_workspace_bytes(o.poisson_kernels, g, int(sizeof(T))));
    if (g.nz == grid_.nz) return ImleSolver<T>::device_bytes(g) + kernels;
    Grid stored = g;  // a rank's slab: at most one neighbour plane on each side, and the z-gather's six
    stored.nz += 2;   // whole-grid arrays (imle_ranks.hpp)
    return ImleSolver<T>::device_bytes(stored) + 6 * grid_.padded_points() * sizeof(T) + kernels;
  }
  template <class T>
  std::vector<std::string> output(const HostState<T>& s, const std::string& dir, const std::string& tag) const {
    std::vector<std::string> files = {write_fields_vti(dir, tag, s.grid, s.fields)};
    if (case_ == ImleCase::cavity) {
      files.push_back(dir + "/" + tag + "_centre_lines.csv");
      write_centre_lines(s, files.back());
    }
    return files;
  }

 private:
  static double taylor_green_u(int c, double x, double z, double t, double nu) {
    const double decay = std::exp(-2 * nu * t);
    return c == 0 ? decay * std::sin(x) * std::cos(z) : c == 2 ? -decay * std::cos(x) * std::sin(z) : 0.0;
  }
  double taylor_green_p(double x, double z, double t) const {
    return 0.25 * (std::cos(2 * x) + std::cos(2 * z)) * std::exp(-4 * prm_.nu * t);
  }
  double initial_velocity(int c, int i, int j, int k, double x, double, double z) const {
    if (case_ == ImleCase::taylor_green) return taylor_green_u(c, x, z, 0.0, prm_.nu);
    const bool lid = k == grid_.nz + 1 && i >= 1 && i <= grid_.nx && j >= 1 && j <= grid_.ny;
    return c == 0 && lid ? 1.0 : 0.0;  // at rest, the lid moving in +x
  }

  // The value of field f on the line through (x, y) or (y, z) at every padded position along the
  // third axis: bilinear in the two across, from the centres and walls (x = 1/2 is a face for even n).
  template <class T>
  void write_centre_lines(const HostState<T>& s, const std::string& path) const {
    const Grid& g = grid_;
    std::ofstream out(path);
    if (!out) throw std::runtime_error("cannot write " + path);
    out << "# IMLE lid-driven cavity, Re " << re_ << ", t " << s.time << ", step " << s.step << "\n"
        << "line,position,velocity_over_lid\n";
    const auto across = [&](const std::vector<T>& f, int fixed_axis_k, bool along_z) {
      // along z: interpolate over (x, y) at each k; along x: over (y, z) at each i
      const int n1 = along_z ? g.nx : g.nz;
      const double l1 = along_z ? g.lx : g.lz;
      std::vector<double> line1(std::size_t(n1 + 2));
      for (int a = 0; a <= n1 + 1; ++a) {
        std::vector<double> col(std::size_t(g.ny + 2));
        for (int j = 0; j <= g.ny + 1; ++j)
          col[std::size_t(j)] = double(f[along_z ? g.idx(a, j, fixed_axis_k) : g.idx(fixed_axis_k, j, a)]);
        line1[std::size_t(a)] = along(col, g.ny, g.ly, 0.5 * g.ly);
      }
      return along(line1, n1, l1, 0.5 * l1);
    };
    for (int k = 0; k <= g.nz + 1; ++k)
      out << "u_on_x_half," << position(k, g.nz, g.lz) << "," << across(s.field("u"), k, true) << "\n";
    for (int i = 0; i <= g.nx + 1; ++i)
      out << "w_on_z_half," << position(i, g.nx, g.lx) << "," << across(s.field("w"), i, false) << "\n";
    if (!out) throw std::runtime_error("writing " + path + " failed");
  }

  ImleCase case_;
  double re_;
  Grid grid_;
  ImleParameters prm_;
  ImleRankPaths paths_;
};

const SolverRegistrar reg{SolverDef{
    .name = "imle",
    .description = "Liu, Wu, Kao & Sheu 2019: IMLE (CC-CCD sixth-order diffusion, Lagrangian move, MLS back to the "
                   "grid, PPE by CG, CC-CCD gradient), cell-centred, walls; z-slabs over ranks (--solver imle)",
    .cases = {"cavity", "taylor_green"},
    .sections = ImleStep<double>::sections(),
    .stages = imle_stages(),
    .by_name_only = true,
    .pressure_method = &imle_poisson_method,
    .make_problem = [](const CaseOptions& o) -> std::unique_ptr<Problem> { return std::make_unique<ImleProblem>(o); },
}};

}  // namespace
}  // namespace nsb
