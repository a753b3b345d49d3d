// Geometric multigrid (multigrid.hpp): the hierarchy, the V- and F-cycles over the poisson/mg_* stage
// kinds, and the four methods that register from here.
#include "poisson/multigrid.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "device.hpp"
#include "fields.hpp"
#include "poisson/multigrid_call.hpp"
#include "poisson/poisson.hpp"
#include "recipe.hpp"
#include "stream_graph.hpp"

namespace nsb {

namespace {
std::string grid_text(const Grid& g) {
  return std::to_string(g.nx) + "x" + std::to_string(g.ny) + "x" + std::to_string(g.nz);
}
bool can_halve(const Grid& g) {
  for (int n : {g.nx, g.ny, g.nz})
    if (n % 2 != 0 || n < 4) return false;
  return true;
}
}  // namespace

namespace {
MgOptions named_options(const std::string& method) {
  const std::string suffix = "_graph";
  if (method.size() > suffix.size() && method.compare(method.size() - suffix.size(), suffix.size(), suffix) == 0) {
    MgOptions o = named_options(method.substr(0, method.size() - suffix.size()));
    return o.graph = true, o;
  }
  MgOptions o;
  if (method == "mg") return o;
  if (method == "mg_f") return o.cycle = MgCycle::f, o;
  if (method == "mg_wj") return o.smoother = MgSmoother::weighted_jacobi, o;
  if (method == "mg_f_wj") return o.cycle = MgCycle::f, o.smoother = MgSmoother::weighted_jacobi, o;
  throw std::invalid_argument("unknown multigrid method '" + method + "'; known: mg mg_f mg_wj mg_f_wj, each with a _graph suffix");
}
// The number after `key` in `word` ("pre2" -> 2), or -1 where the word is not key + digits.
int keyed_count(const std::string& word, const std::string& key) {
  if (word.size() <= key.size() || word.compare(0, key.size(), key) != 0 || word.size() > key.size() + 6) return -1;
  for (std::size_t i = key.size(); i < word.size(); ++i)
    if (word[i] < '0' || word[i] > '9') return -1;
  return std::stoi(word.substr(key.size()));
}
}  // namespace

MgOptions mg_method_options(const std::string& method, const std::string& options) {
  MgOptions o = named_options(method);
  const auto refuse = [&](const std::string& why) {
    return std::invalid_argument("multigrid (--poisson " + method + ":" + options + "): " + why +
                                 "; options are preN, postN (smoothing sweeps) and wN (omega in hundredths), joined by '_'");
  };
  bool omega_given = false;
  std::size_t at = 0;
  while (at < options.size()) {
    const std::size_t end = std::min(options.find('_', at), options.size());
    const std::string word = options.substr(at, end - at);
    at = end + 1;
    if (const int n = keyed_count(word, "pre"); n >= 0) o.pre = n;
    else if (const int m = keyed_count(word, "post"); m >= 0) o.post = m;
    else if (const int w = keyed_count(word, "w"); w >= 0) o.omega = w / 100.0, omega_given = true;
    else throw refuse("unknown option '" + word + "'");
  }
  if (o.pre > 10 || o.post > 10 || o.pre + o.post < 1) throw refuse("pre and post must be 0 to 10 with at least one sweep in all");
  if (omega_given && !(o.omega > 0 && o.omega < 2)) throw refuse("omega must lie in (0, 2)");
  return o;
}

std::string mg_options_text(const MgOptions& o) {
  const double omega = o.omega > 0 ? o.omega : o.smoother == MgSmoother::weighted_jacobi ? kMgJacobiWeight : 1.0;
  return "pre" + std::to_string(o.pre) + "_post" + std::to_string(o.post) + "_w" + std::to_string(int(std::lround(omega * 100)));
}

std::vector<Grid> mg_levels(const Grid& fine) {
  if (fine.nx < 1 || fine.ny < 1 || fine.nz < 1) throw std::invalid_argument("multigrid: impossible grid " + grid_text(fine));
  std::vector<Grid> levels = {fine};
  while (can_halve(levels.back())) {
    Grid c = levels.back();
    c.nx /= 2, c.ny /= 2, c.nz /= 2;
    levels.push_back(c);
  }
  const Grid& last = levels.back();
  const int longest = std::max({last.nx, last.ny, last.nz});
  if (static_cast<long long>(last.interior_points()) > kMgCoarsestMaxCells || longest > 16)
    throw std::invalid_argument(
        "multigrid cannot coarsen grid " + grid_text(fine) + ": halving every axis while all are even and at least 4 stops at " +
        grid_text(last) + " (" + std::to_string(last.interior_points()) + " cells, longest side " + std::to_string(longest) +
        "), but the coarsest-level solve takes at most " + std::to_string(kMgCoarsestMaxCells) +
        " cells and sides of at most 16. Use sizes m * 2^L with the same L on every axis and small m, e.g. 64, 96, 128, "
        "192, 256 or 512 on every axis (or 256x64x256), or another --poisson method");
  return levels;
}

int mg_coarse_sweeps(const Grid& g) {
  const int n = std::max({g.nx, g.ny, g.nz});
  return 2 * n * n + 8;
}

namespace {

// The multigrid stage kinds, in the order the method resolves them.
enum Stage { ghosts, jacobi, rbgs, residual, restrict_, residual_restrict, prolong, coarse, sums, shift, kStages };
const char* const kStageIds[kStages] = {"poisson/mg_ghosts", "poisson/mg_jacobi", "poisson/mg_rbgs",
                                        "poisson/mg_residual", "poisson/mg_restrict", "poisson/mg_residual_restrict",
                                        "poisson/mg_prolong", "poisson/mg_coarse", "poisson/mg_sums", "poisson/mg_shift"};

template <class T>
class Multigrid final : public PoissonMethod<T> {
 public:
  Multigrid(const PoissonSettings& s, MgOptions o, std::string name) : s_(s), o_(o), name_(std::move(name)) {}

  PoissonReport solve(PoissonSystem<T>& system) override {
    const PoissonEquation<T> eq = system.equation();
    prepare(eq);
    Level& top = levels_[0];
    top.a[0] = eq.p, top.cur = 0;
    const bool tolerance = s_.tolerance > 0;
    // The guess's ghosts, then f0 = rhs_scale * rhs (minus its mean where the problem is singular).
    run_ghosts(0);
    if (singular_) run_sums(eq.rhs, grid(0));
    run_shift(eq.rhs, top.f, eq.rhs_scale, singular_, grid(0));
    PoissonReport r;
    const double rhs = tolerance ? rms_of(top.f, 0) : 0;
    double previous = 0;
    for (int it = 1; it <= s_.iterations; ++it) {
      run_cycle();
      r.iterations = it;
      const int every = s_.check_interval(kMgDefaultCheckEvery);
      if (!tolerance || (it % every != 0 && it != s_.iterations)) continue;
      run_residual(0);
      r.absolute_residual = rms_of(top.spare(), 0);
      if (r.absolute_residual <= s_.tolerance * std::max(rhs, 1e-300)) break;
      if (previous > 0 && r.absolute_residual > kStallRatio * previous) {
        report_stall(r.absolute_residual / rhs);
        break;
      }
      previous = r.absolute_residual;
    }
    r.relative_residual = tolerance && rhs > 0 ? r.absolute_residual / rhs : r.absolute_residual;
    if (top.e() != eq.p) copy(top.e(), eq.p, grid(0));
    top.a[0] = eq.p, top.cur = 0;
    if (singular_) {  // the solution's interior mean to zero (the family's rule)
      run_sums(eq.p, grid(0));
      run_shift(eq.p, eq.p, T(1), true, grid(0));
      run_ghosts(0);
    }
    return r;
  }

  // The modelled bytes and the kernels of one cycle on `fine`, without running anything.
  MgCycleCost count_cycle(const Grid& fine, const PoissonFaces& faces) {
    count_only_ = true;
    set_faces(faces);
    build_levels(mg_levels(fine));
    bytes_ = 0, kernels_ = 0;
    cycle(0, o_.cycle);
    return {bytes_ / mg_jacobi_model(fine, eb).bytes, kernels_};
  }

 private:
  struct Level {
    Grid grid;
    T* a[2] = {nullptr, nullptr};  // the correction (solution on level 0) and a spare of the same shape
    int cur = 0;
    T* f = nullptr;                // right-hand side
    T* e() const { return a[cur]; }
    T* spare() const { return a[1 - cur]; }
    std::vector<Buffer<T>> owned;
  };

  const Grid& grid(int l) const { return levels_[std::size_t(l)].grid; }
  int last() const { return int(levels_.size()) - 1; }

  // A check that finds the residual above half the previous one has met roundoff (a cycle divides it by
  // 5 to 10 otherwise): more cycles would change nothing. In float the residual of a smooth solution
  // stops near 0.2 eps n^2 (measured: 1.3e-5 at 32^3, 5e-5 at 64^3, 2e-4 at 128^3; a rough one near
  // 5e-7), so many float tolerances stall here.
  static constexpr double kStallRatio = 0.5;
  void report_stall(double relative) {
    if (!stall_reported_)
      std::fprintf(stderr, "%s: the residual stalled at %.2e of the right-hand side, above the tolerance %.1e (%s roundoff); "
                   "stopping the cycles there (reported once)\n", name_.c_str(), relative, s_.tolerance,
                   sizeof(T) == 4 ? "float" : "double");
    stall_reported_ = true;
  }

  // Checks the equation and builds the hierarchy, its arrays and the kernels once (again only if the
  // grid, faces or backend change).
  void prepare(const PoissonEquation<T>& eq) {
    const double eps = std::numeric_limits<T>::epsilon();
    if (s_.tolerance > 0 && s_.tolerance < 4 * eps) {
      char text[256];
      std::snprintf(text, sizeof text, "a tolerance of %.3g is below what a %s residual can show (4 epsilons, %.2g)%s",
                    s_.tolerance, sizeof(T) == 4 ? "float" : "double", 4 * eps,
                    sizeof(T) == 4 ? "; use double, or a tolerance of at least 1e-5 for smooth solutions" : "");
      throw std::invalid_argument("multigrid (--poisson " + name_ + "): " + text);
    }
    if (eq.decomposed)
      throw std::invalid_argument("multigrid (--poisson " + name_ + ") runs on one rank; this equation is a rank's slab of a "
                                  "decomposed grid: run it on one rank, or use --poisson jacobi");
    const bool same = !levels_.empty() && grid(0).nx == eq.grid.nx && grid(0).ny == eq.grid.ny &&
                      grid(0).nz == eq.grid.nz && exec_.backend == eq.exec.backend;
    exec_ = eq.exec;
    set_faces(eq.faces);
    if (same) return;
    gpu_ = eq.exec.backend == Backend::cuda;
    build_levels(mg_levels(eq.grid));
    graph_cur_.assign(levels_.size(), 0);
    for (std::size_t l = 0; l < levels_.size(); ++l) {
      Level& L = levels_[l];
      const std::size_t n = L.grid.padded_points();
      for (int k = l == 0 ? 1 : 0; k < 3; ++k) L.owned.emplace_back(n, gpu_, "multigrid level array");
      if (l == 0) L.a[1] = L.owned[0].get(), L.f = L.owned[1].get();
      else L.a[0] = L.owned[0].get(), L.a[1] = L.owned[1].get(), L.f = L.owned[2].get();
    }
    sums_ = Buffer<double>(2, gpu_, "multigrid sums");
    partials_ = Buffer<double>(2 * kMgSumsMaxBlocks, gpu_, "multigrid partial sums");
    for (int s = 0; s < kStages; ++s) {
      const auto chosen = s_.kernels.find(kStageIds[s]);
      stage_[s] = resolve_stage_choice(kStageIds[s], eq.exec.backend, chosen == s_.kernels.end() ? "" : chosen->second);
    }
  }
  void set_faces(const PoissonFaces& f) {
    faces_ = f;
    singular_ = f.singular();
    periodic_ = false;
    for (const auto& axis : f.face)
      for (PoissonFace face : axis) periodic_ = periodic_ || face == PoissonFace::periodic;
  }
  void build_levels(const std::vector<Grid>& grids) {
    levels_.clear();
    levels_.resize(grids.size());
    for (std::size_t l = 0; l < grids.size(); ++l) levels_[l].grid = grids[l];
  }

  // One cycle on the finest level, as a CUDA graph where MgOptions::graph asks and the stream allows it.
  // The key is what the cycle's launches bake in; a replay leaves the levels' current arrays (weighted
  // Jacobi swaps them) where the captured cycle left them.
  void run_cycle() {
    if (!o_.graph) return cycle(0, o_.cycle);
    StreamGraph::Key key = {reinterpret_cast<std::uintptr_t>(exec_.stream), std::uintptr_t(grid(0).nx),
                            std::uintptr_t(grid(0).ny), std::uintptr_t(grid(0).nz)};
    for (const Level& L : levels_)
      for (const T* a : {L.a[0], L.a[1], L.f}) key.push_back(reinterpret_cast<std::uintptr_t>(a));
    for (const Level& L : levels_) key.push_back(std::uintptr_t(L.cur));
    for (const auto& axis : faces_.face)
      for (PoissonFace f : axis) key.push_back(std::uintptr_t(f));
    const GraphStep step = graph_.run(gpu_, exec_.stream, std::move(key), [&] { cycle(0, o_.cycle); });
    if (step == GraphStep::capture)
      for (std::size_t l = 0; l < levels_.size(); ++l) graph_cur_[l] = levels_[l].cur;
    if (step == GraphStep::replay)
      for (std::size_t l = 0; l < levels_.size(); ++l) levels_[l].cur = graph_cur_[l];
  }

  void cycle(int l, MgCycle kind) {
    if (l == last()) return run_coarse(l);
    smooth(l, o_.pre);
    if (o_.fused_restriction) {
      run_residual_restrict(l);
    } else {
      run_residual(l);
      run_restrict(l);
    }
    if (singular_) {
      run_sums(levels_[std::size_t(l) + 1].f, grid(l + 1));
      run_shift(levels_[std::size_t(l) + 1].f, levels_[std::size_t(l) + 1].f, T(1), true, grid(l + 1));
    }
    zero(l + 1);
    cycle(l + 1, kind);
    if (kind == MgCycle::f && l + 1 != last()) cycle(l + 1, MgCycle::v);
    run_prolong(l);
    run_ghosts(l);
    smooth(l, o_.post);
  }
  void smooth(int l, int sweeps) {
    for (int s = 0; s < sweeps; ++s) {
      if (o_.smoother == MgSmoother::weighted_jacobi) {
        run_jacobi(l);
        run_ghosts(l);
      } else {
        // A neumann or dirichlet ghost copies the cell next to it and only that cell reads it, so
        // the black half-sweep needs no fresh ghosts (the red cells' ghosts are read by red cells
        // only); a periodic ghost copies the far side, which the other colour reads: refresh it.
        run_rbgs(l, 0);
        if (periodic_) run_ghosts(l);
        run_rbgs(l, 1);
        run_ghosts(l);
      }
    }
  }

  // One call of a stage: its modelled bytes counted, then (unless only counting) its variant run.
  template <class Call>
  void run(Stage s, Call& c, const WorkModel& m) {
    bytes_ += m.bytes;
    kernels_ += s == sums ? 2 : 1;  // the two-pass sums launch two kernels (CPU variants: loops)
    if (count_only_) return;
    c.tuning = stage_[s].tuning;
    c.exec = exec_;
    c.exec.backend = stage_[s].variant->backend;
    stage_[s].variant->template fn<Call>()(c);
  }
  template <class Call>
  Call call(const Grid& g) const {
    Call c;
    c.grid = g, c.zr = ZRange::interior(g);
    return c;
  }
  static constexpr int eb = int(sizeof(T));

  void run_ghosts(int l) {
    auto c = call<MgGhostsCall<T>>(grid(l));
    c.faces = faces_, c.a = levels_[std::size_t(l)].e();
    run(ghosts, c, mg_ghosts_model(grid(l), eb));
  }
  void run_jacobi(int l) {
    Level& L = levels_[std::size_t(l)];
    auto c = call<MgJacobiCall<T>>(L.grid);
    c.p = L.e(), c.f = L.f, c.out = L.spare();
    if (o_.omega > 0) c.omega = T(o_.omega);
    run(jacobi, c, mg_jacobi_model(L.grid, eb));
    L.cur = 1 - L.cur;
  }
  void run_rbgs(int l, int colour) {
    const Level& L = levels_[std::size_t(l)];
    auto c = call<MgRbgsCall<T>>(L.grid);
    c.p = L.e(), c.f = L.f, c.colour = colour;
    if (o_.omega > 0) c.omega = T(o_.omega);
    run(rbgs, c, mg_rbgs_model(L.grid, eb));
  }
  void run_residual(int l) {  // into the level's spare array
    const Level& L = levels_[std::size_t(l)];
    auto c = call<MgResidualCall<T>>(L.grid);
    c.p = L.e(), c.f = L.f, c.r = L.spare();
    run(residual, c, mg_residual_model(L.grid, eb));
  }
  void run_restrict(int l) {  // level l's residual (its spare) to level l+1's right-hand side
    auto c = call<MgRestrictCall<T>>(grid(l + 1));
    c.fine = grid(l), c.fine_r = levels_[std::size_t(l)].spare(), c.coarse_f = levels_[std::size_t(l) + 1].f;
    run(restrict_, c, mg_restrict_model(grid(l + 1), eb));
  }
  void run_residual_restrict(int l) {  // level l's residual straight to level l+1's right-hand side
    auto c = call<MgResidualRestrictCall<T>>(grid(l + 1));
    c.fine = grid(l), c.p = levels_[std::size_t(l)].e(), c.f = levels_[std::size_t(l)].f;
    c.coarse_f = levels_[std::size_t(l) + 1].f;
    run(residual_restrict, c, mg_residual_restrict_model(grid(l + 1), eb));
  }
  void run_prolong(int l) {  // level l+1's correction added to level l's
    auto c = call<MgProlongCall<T>>(grid(l));
    c.coarse = grid(l + 1), c.coarse_e = levels_[std::size_t(l) + 1].e(), c.fine_e = levels_[std::size_t(l)].e();
    run(prolong, c, mg_prolong_model(grid(l), eb));
  }
  void run_coarse(int l) {
    const Level& L = levels_[std::size_t(l)];
    auto c = call<MgCoarseCall<T>>(L.grid);
    c.faces = faces_, c.e = L.e(), c.f = L.f, c.sweeps = mg_coarse_sweeps(L.grid);
    run(coarse, c, mg_coarse_model(L.grid, c.sweeps, eb));
  }
  void run_sums(const T* a, const Grid& g) {
    auto c = call<MgSumsCall<T>>(g);
    c.a = a, c.sums = sums_.get(), c.partials = partials_.get();
    run(sums, c, mg_sums_model(g, eb));
  }
  void run_shift(const T* in, T* out, T scale, bool remove_mean, const Grid& g) {
    auto c = call<MgShiftCall<T>>(g);
    c.in = in, c.out = out, c.scale = scale, c.sums = remove_mean ? sums_.get() : nullptr;
    run(shift, c, mg_shift_model(g, eb));
  }
  // RMS over the interior of a level-l array (synchronises: the sums are read back).
  double rms_of(const T* a, int l) {
    run_sums(a, grid(l));
    double s[2];
    if (gpu_) {
      device::stream_sync(exec_.stream);
      device::copy_to_host(s, sums_.get(), sizeof s);
    } else {
      s[0] = sums_.get()[0], s[1] = sums_.get()[1];
    }
    return std::sqrt(s[1] / double(grid(l).interior_points()));
  }
  void zero(int l) {  // the coarse correction's start (ghosts included)
    const Level& L = levels_[std::size_t(l)];
    const std::size_t n = L.grid.padded_points();
    bytes_ += double(n) * eb;
    kernels_ += 1;  // a memset
    if (count_only_) return;
    if (gpu_) device::fill_bytes(L.e(), 0, n * sizeof(T), exec_.stream);
    else std::fill(L.e(), L.e() + n, T(0));
  }
  void copy(const T* from, T* to, const Grid& g) {
    const std::size_t n = g.padded_points();
    if (gpu_) device::copy_device(to, from, n * sizeof(T), exec_.stream);
    else std::copy(from, from + n, to);
  }

  PoissonSettings s_;
  MgOptions o_;
  std::string name_;
  std::vector<Level> levels_;
  PoissonFaces faces_;
  bool singular_ = false, periodic_ = false, gpu_ = false, count_only_ = false, stall_reported_ = false;
  Exec exec_;
  ResolvedStage stage_[kStages];
  Buffer<double> sums_, partials_;
  StreamGraph graph_;            // one cycle (MgOptions::graph)
  std::vector<int> graph_cur_;   // each level's current array after the captured cycle
  double bytes_ = 0;
  int kernels_ = 0;
};

template <class T>
std::unique_ptr<PoissonMethod<T>> make(const PoissonSettings& s, const char* name) {
  return std::make_unique<Multigrid<T>>(s, mg_method_options(name, s.options),
                                        s.options.empty() ? std::string(name) : name + (":" + s.options));
}
// The registered methods: a name mg_method_options() parses, and its help text.
struct MgMethodName {
  const char* name;
  const char* description;
};
constexpr MgMethodName kMgMethods[] = {
    {"mg", "geometric multigrid, V(2,2)-cycles, red-black Gauss-Seidel smoother, trilinear prolongation"},
    {"mg_f", "geometric multigrid, F(2,2)-cycles, red-black Gauss-Seidel smoother"},
    {"mg_wj", "geometric multigrid, V(2,2)-cycles, weighted Jacobi smoother (omega 6/7)"},
    {"mg_f_wj", "geometric multigrid, F(2,2)-cycles, weighted Jacobi smoother (omega 6/7)"},
    {"mg_graph", "mg with each V-cycle captured once as a CUDA graph and replayed (plain launches on the CPU and "
                 "under --launch graph)"},
    {"mg_f_graph", "mg_f with each F-cycle captured once as a CUDA graph and replayed"},
    // The weighted-Jacobi smoother swaps its arrays: these re-capture when a level's current array changes.
    {"mg_wj_graph", "mg_wj with each V-cycle captured once as a CUDA graph and replayed"},
    {"mg_f_wj_graph", "mg_f_wj with each F-cycle captured once as a CUDA graph and replayed"},
};

// Workspace: the fine level's spare and right-hand side, three arrays on every coarser level (3/7 of a
// fine array in all).
constexpr double kMgArrays = 2.5;

template <class T, int M>
std::unique_ptr<PoissonMethod<T>> make_method(const PoissonSettings& s) {
  return make<T>(s, kMgMethods[M].name);
}
template <int M>
PoissonMethodInfo method_info() {
  return {kMgMethods[M].name, kMgMethods[M].description, &make_method<float, M>, &make_method<double, M>, kMgArrays,
          "preN_postN_wN: smoothing sweeps before and after the coarse correction (default 2, 2), the smoother's omega "
          "in hundredths (red-black Gauss-Seidel: 100, over-relaxed above; weighted Jacobi: 86)"};
}
const PoissonMethodRegistrar reg_mg{method_info<0>()}, reg_mg_f{method_info<1>()}, reg_mg_wj{method_info<2>()},
    reg_mg_f_wj{method_info<3>()}, reg_mg_graph{method_info<4>()}, reg_mg_f_graph{method_info<5>()},
    reg_mg_wj_graph{method_info<6>()}, reg_mg_f_wj_graph{method_info<7>()};

// What `nsbench tune` tries beside each red-black Gauss-Seidel method's defaults when it chooses a Poisson method at
// a tolerance (option_choices("poisson:tune"), read by harness/tune.cpp): the over-relaxed smoother and one fewer
// pre-smoothing sweep, the options that won on the H100 (docs/solvers/poisson_multigrid.md: mg_graph:w130 at 68.6
// sweep equivalents). Weighted Jacobi's weight is left at its 6/7 optimum.
const struct MgTuneOptionsRegistrar {
  MgTuneOptionsRegistrar() {
    for (const char* method : {"mg", "mg_f", "mg_graph", "mg_f_graph"})
      for (const char* options : {"w115", "w130", "pre1_post2_w130"})
        option_choices("poisson:tune").push_back(std::string(method) + ":" + options);
  }
} mg_tune_options;

}  // namespace

MgCycleCost mg_cycle_cost(const Grid& fine, const MgOptions& o, const PoissonFaces& faces) {
  return Multigrid<double>(PoissonSettings{}, o, "mg").count_cycle(fine, faces);
}

}  // namespace nsb
