// The fixture of every stage of the grid generator (ogrid/sweep) and the flow solver (streamvort/*):
// `nsbench verify`, `nsbench stages` and nsbench-micro run any of their variants on it.
//
// Random values alone would make the elliptic operators meaningless (a Jacobi denominator near zero),
// so the inputs that are geometry come from a real grid: the algebraic NACA0012 O-grid of the fixture's
// size (geometry.hpp), its Thomas-Middlecoff controls and its metric coefficients. The fields that
// are state (psi: the initial stream function plus a random part; omega) and every output array are
// random from the seed, so a stray write shows (verify compares every array, ghosts included). The
// residual is appended to arrays() (beside the magnitude of the field it measures), so verify checks the
// reduction variants too.
#pragma once

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "device.hpp"
#include "fields.hpp"
#include "stage_kind.hpp"
#include "grid2d/geometry.hpp"
#include "grid2d/stage_call.hpp"

namespace nsb {

// The generic tools ask for 3D grids (verify: odd ones); a plane of nx by ny nz nodes keeps distinct
// grids distinct and NXxNYx1 itself.
inline Grid as_streamvort_grid(const Grid& g) { return Grid{g.nx, g.ny * g.nz, 1, 1.0, 1.0, 1.0}; }

template <class T>
class StreamvortFixture final : public StageFixture<T> {
 public:
  explicit StreamvortFixture(const FixtureSpec& s)
      : stage_(s.stage), turbulent_(s.workload == "turbulent"), convection_(vorticity_convection(s.workload)), grid_(as_streamvort_grid(s.grid)), fields_(grid_.padded_points(), gpu(s)) {
    for (const char* name : {"x", "y", "phi", "psi_c", "x_new", "y_new", "psi", "psi_new", "omega", "omega_new", "ca",
                             "cb", "cg", "p", "q", "ij", "wall_dist", "nu_eff"})
      fields_.add(name);
    if (gpu(s)) {
      stream_ = device::stream_create();
      scratch_ = device::alloc(kReduceScratchBytes, "fixture scratch");
      residual_ = static_cast<T*>(device::alloc(sizeof(T), "fixture residual"));
    } else {
      residual_ = &host_residual_;
    }
    if (s.verify || !gpu(s)) fields_.fill_random_host(s.seed);
    else fields_.fill_random_device(1000, stream_);
    if (stream_) device::stream_sync(stream_);  // the random fill first, then the geometry over it
    set_geometry(s.seed);
    exec_ = Exec{s.backend, 0, stream_, scratch_, gpu(s) ? kReduceScratchBytes : 0};
  }
  ~StreamvortFixture() override {
    if (!stream_) return;
    device::free(scratch_);
    device::free(residual_);
    device::stream_destroy(stream_);
  }
  StreamvortFixture(const StreamvortFixture&) = delete;
  StreamvortFixture& operator=(const StreamvortFixture&) = delete;

  void run(const Variant& v, const Tuning& t) override {
    Exec e = exec_;
    e.backend = v.backend;
    const auto f = [&](const char* name) { return fields_[name]; };
    if (stage_ == "sweep") {
      GridSweepCall<T> c{grid_, f("x"), f("y"), f("phi"), f("psi_c"), f("x_new"), f("y_new"), T(0.8), ends_, residual_, t, e};
      v.fn<GridSweepCall<T>>()(c);
    } else if (stage_ == "stream") {
      StreamCall<T> c{grid_, f("psi"), f("omega"), f("ca"), f("cb"), f("cg"), f("p"), f("q"), f("psi_new"), T(1),
                      ends_, residual_, t, e};
      v.fn<StreamCall<T>>()(c);
    } else if (stage_ == "stream_sor") {
      StreamCall<T> c{grid_, f("psi"), f("omega"), f("ca"), f("cb"), f("cg"), f("p"), f("q"), f("psi"), T(1.5),
                      ends_, residual_, t, e};
      v.fn<StreamCall<T>>()(c);
    } else if (stage_ == "vorticity") {
      VorticityCall<T> c{grid_, f("omega"), f("psi"), f("ca"), f("cb"), f("cg"), f("p"), f("q"), f("ij"),
                         f("omega_new"), T(nu_), T(dt_), ends_, t, e, turbulent_ ? f("nu_eff") : nullptr, convection_};
      v.fn<VorticityCall<T>>()(c);
    } else if (stage_ == "turbulence") {
      TurbulenceCall<T> c{grid_, f("psi"), f("omega"), f("ca"), f("cb"), f("cg"), f("wall_dist"), f("nu_eff"), T(nu_),
                          1, ends_, t, e};
      v.fn<TurbulenceCall<T>>()(c);
    } else {
      BoundaryCall<T> c{grid_, f("psi"), f("cg"), f("x"), f("y"), f("omega"), 1, ends_, T(1), T(0), t, e};
      v.fn<BoundaryCall<T>>()(c);
    }
  }
  std::vector<std::pair<std::string, std::vector<T>>> arrays() const override {
    sync();
    std::vector<std::pair<std::string, std::vector<T>>> out;
    for (const std::string& name : fields_.names()) out.emplace_back(name, fields_.buffer(name).download());
    // The residual is a change of x, y or psi, so its rounding is that of the field: it goes beside the
    // field's largest magnitude, which verify's per-array relative difference then divides by.
    if (stage_ == "sweep" || stage_ == "stream" || stage_ == "stream_sor")
      out.emplace_back("residual", std::vector<T>{residual(), T(stage_ == "sweep" ? coordinate_scale_ : psi_scale_)});
    return out;
  }
  double scalar() const override { return double(residual()); }
  WorkModel model() const override {
    const int elem = int(sizeof(T));
    if (stage_ == "sweep") return grid_sweep_model(grid_, elem);
    if (stage_ == "stream" || stage_ == "stream_sor") return stream_model(grid_, elem);
    if (stage_ == "vorticity")
      return turbulent_ ? turbulent_vorticity_model(grid_, elem) : vorticity_model(grid_, elem, convection_);
    if (stage_ == "turbulence") return turbulence_model(grid_, elem);
    return boundary_model(grid_, elem);
  }
  void* stream() const override { return stream_; }

 private:
  static bool gpu(const FixtureSpec& s) { return s.backend == Backend::cuda; }
  void sync() const {
    if (stream_) device::stream_sync(stream_);
  }
  T residual() const {
    if (!stream_) return host_residual_;
    sync();
    T r = 0;
    device::copy_to_host(&r, residual_, sizeof r);
    return r;
  }
  void upload(const char* name, const std::vector<double>& v) {
    fields_.upload(name, std::vector<T>(v.begin(), v.end()));
  }
  // The geometric inputs from the algebraic O-grid; psi = its initial field + 1% random.
  void set_geometry(unsigned seed) {
    GridSpec spec;
    spec.nx = grid_.nx, spec.ny = grid_.ny;
    const Geometry geo = algebraic_grid(spec);
    ends_ = geo.ends;
    std::vector<double> phi, psi_c;
    grid_controls(geo, phi, psi_c);
    const Metrics m = grid_metrics(geo.grid, geo.x, geo.y, geo.ends);
    upload("x", geo.x), upload("y", geo.y), upload("phi", phi), upload("psi_c", psi_c);
    upload("ca", m.ca), upload("cb", m.cb), upload("cg", m.cg), upload("p", m.p), upload("q", m.q), upload("ij", m.ij);
    std::vector<double> psi = initial_stream_function(geo);
    const std::vector<double> noise = random_values<double>(psi.size(), seed + 100);
    for (std::size_t n = 0; n < psi.size(); ++n) psi[n] += 0.01 * noise[n];
    upload("psi", psi);
    upload("wall_dist", wall_distance(geo));
    // nu_eff a random multiple of nu in [3, 7] for the turbulent update; for Baldwin-Lomax, omega of a
    // boundary layer's size (random, from the seed), so that the eddy viscosity is not negligible.
    std::vector<double> noise2 = random_values<double>(psi.size(), seed + 200), nu_eff(psi.size());
    for (std::size_t n = 0; n < psi.size(); ++n) nu_eff[n] = (1 + 4 * std::abs(noise2[n])) / 5000;
    upload("nu_eff", nu_eff);
    if (stage_ == "turbulence") {
      for (double& w : noise2) w *= 200;
      upload("omega", noise2);
    }
    for (double v : geo.x) coordinate_scale_ = std::max(coordinate_scale_, std::abs(v));
    for (double v : geo.y) coordinate_scale_ = std::max(coordinate_scale_, std::abs(v));
    for (double v : psi) psi_scale_ = std::max(psi_scale_, std::abs(v));
    nu_ = 1.0 / 5000;
    dt_ = stable_time_step(geo, m, psi, nu_, 0.8);
  }

  std::string stage_;
  bool turbulent_;  // vorticity's turbulent workload
  Convection convection_;  // vorticity's upwind2 workload: limited 2nd-order upwinding
  Grid grid_;
  FieldSet<T> fields_;
  XiEnds ends_ = XiEnds::periodic;
  Exec exec_;
  double nu_ = 0, dt_ = 0;
  double coordinate_scale_ = 0, psi_scale_ = 0;  // largest |x|, |y| and |psi| of the inputs
  void* stream_ = nullptr;
  void* scratch_ = nullptr;
  T* residual_ = nullptr;
  T host_residual_ = 0;
};

}  // namespace nsb
