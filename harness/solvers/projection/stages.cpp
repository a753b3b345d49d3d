// The projection solver's stage kinds: what each reads and writes, its work model, tolerance, tuning
// axes and tag vocabulary, and the fixture on which `nsbench verify`, `nsbench stages` and
// nsbench-micro run any of its variants.
#include <cmath>

#include "projection/city.hpp"
#include "projection/models.hpp"
#include "projection/urban_ops.hpp"
#include "projection/time_loop.hpp"
#include "stage_kind.hpp"

namespace nsb {
namespace {

// A boundary set that exercises every rule: walls (one moving), free-slip, periodic.
BoundarySpec mixed_boundaries() {
  BoundarySpec b;
  b.face[0][0].type = b.face[0][1].type = FaceType::wall;
  b.face[0][1].wall_velocity[1] = 0.7;
  b.face[0][1].wall_velocity[2] = -0.3;
  b.face[1][0].type = b.face[1][1].type = FaceType::periodic;
  b.face[2][0].type = FaceType::free_slip;
  b.face[2][1].type = FaceType::wall;
  b.face[2][1].wall_velocity[0] = 1.0;
  return b;
}

// A cavity: walls, free-slip span, moving lid (what the benchmarks time).
BoundarySpec cavity_boundaries() {
  BoundarySpec bc;
  bc.face[1][0].type = bc.face[1][1].type = FaceType::free_slip;
  bc.face[2][1].wall_velocity[0] = 1;
  return bc;
}

ProjectionStage stage_of(const std::string& name) {
  for (int s = 0; s < int(ProjectionStage::count); ++s)
    if (name == stage_name(ProjectionStage(s))) return ProjectionStage(s);
  throw std::logic_error("no projection stage '" + name + "'");
}

// The fixture's fields in the order the stage benchmark has always allocated and seeded them (field i
// from seed 1000 + i): the same values at the same relative places keep timings comparable with
// results recorded before (momentum's timings moved by up to 7% when the order changed).
constexpr const char* kFixtureFields[] = {"u", "v", "w", "us", "vs", "ws", "hu", "hv", "hw", "p", "p_new", "div"};

// The urban fields, after those (so the others keep their seeds), only where a kind needs them: the
// flags for the obstacle logic and the masked sweep, the obstacle workspace, the eddy viscosity.
bool fixture_needs_flags(ProjectionStage s, const std::string& workload) {
  return s == ProjectionStage::obstacles || (s == ProjectionStage::pressure && workload == "obstacles");
}
constexpr const char* kObstacleWorkspace[] = {"ut", "vt", "wt"};

// A small seeded city on any grid (height along y): 3-cell blocks, 2-cell streets, heights 1 .. ny - 1
// cells, the first row of blocks against the inflow face: walls, roofs, corners, narrow gaps, and
// buildings touching a face, whatever the verify grid.
std::vector<double> fixture_city(const Grid& g) {
  CityPlan plan;
  plan.seed = 7, plan.block = 3, plan.street = 2;
  plan.min_height = 1, plan.max_height = std::max(1, g.ny - 1);
  return solid_flags(g, generate_city(g, plan));
}

// Every field of the solver (random, never zero), a StageCall wired to them, step parameters and the
// reduction's scratch and result; one class serves every projection stage kind.
template <class T>
class ProjectionFixture final : public StageFixture<T> {
 public:
  explicit ProjectionFixture(const FixtureSpec& s)
      : stage_(stage_of(s.stage)), fields_(s.grid.padded_points(), s.backend == Backend::cuda) {
    const bool gpu = s.backend == Backend::cuda;
    for (const char* name : kFixtureFields) fields_.add(name);
    const bool flags = fixture_needs_flags(stage_, s.workload);
    if (flags) fields_.add("solid");
    if (stage_ == ProjectionStage::obstacles)
      for (const char* name : kObstacleWorkspace) fields_.add(name);
    if (stage_ == ProjectionStage::nu_turbulent || s.workload == "eddy") fields_.add("nut");
    if (gpu) {
      stream_ = device::stream_create();
      scratch_ = device::alloc(kReduceScratchBytes, "fixture scratch");
      out_ = static_cast<double*>(device::alloc(sizeof(double), "fixture result"));
    }
    if (s.verify || !gpu) fields_.fill_random_host(s.seed);  // a CPU fixture has no device to fill on
    else fields_.fill_random_device(1000, stream_);
    StageCall<T>& c = call_;
    c.grid = s.grid;
    c.zr = ZRange::interior(s.grid);
    c.f = field_pointers(fields_);
    if (flags) set_city(s.grid, gpu);
    if (fields_.has("ut")) c.f.ut = fields_["ut"], c.f.vt = fields_["vt"], c.f.wt = fields_["wt"];
    if (fields_.has("nut")) c.f.nut = fields_["nut"];
    c.bc = BoundaryRules<T>::make(s.verify ? mixed_boundaries() : cavity_boundaries());
    if (s.verify) {
      c.prm.dt = T(0.01), c.prm.nu = T(0.1), c.prm.gamma = T(0.3);
      c.prm.force[0] = T(0.2), c.prm.force[1] = T(-0.1), c.prm.force[2] = T(0.05);
    } else {
      c.prm.dt = T(1e-3), c.prm.nu = T(1e-3);
    }
    c.prm.scheme = s.workload == "ab2" || s.workload == "eddy" ? TimeScheme::adams_bashforth2 : TimeScheme::euler;
    c.prm.first_step = false;
    c.prm.coef = make_grid_coef<T>(s.grid);
    c.prm.cs_delta2 = T(0.01);  // verify: a value of the order of (0.1 Delta)^2 on a unit-size grid
    c.exec = Exec{s.backend, 0, stream_, scratch_, gpu ? kReduceScratchBytes : 0};
    c.reduce_a = c.f.p_new, c.reduce_b = c.f.p, c.reduce_out = gpu ? out_ : &host_out_;
  }
  ~ProjectionFixture() override {
    if (!stream_) return;
    if (cells_device_) device::free(cells_device_);
    device::free(scratch_);
    device::free(out_);
    device::stream_destroy(stream_);
  }
  void run(const Variant& v, const Tuning& t) override {
    call_.tuning = t;
    call_.exec.backend = v.backend;
    v.fn<StageCall<T>>()(call_);
  }
  std::vector<std::pair<std::string, std::vector<T>>> arrays() const override {
    if (stream_) device::stream_sync(stream_);
    std::vector<std::pair<std::string, std::vector<T>>> out;
    for (const std::string& name : fields_.names())
      if (!is_workspace(name)) out.emplace_back(name, fields_.buffer(name).download());
    return out;
  }
  double scalar() const override {
    if (!stream_) return host_out_;
    double r = 0;
    device::stream_sync(stream_);
    device::copy_to_host(&r, out_, sizeof r);
    return r;
  }
  WorkModel model() const override {
    const int bytes = int(sizeof(T));
    if (stage_ == ProjectionStage::obstacles) return obstacles_work_model(double(cells_.size()), bytes);
    if (stage_ == ProjectionStage::nu_turbulent) return nu_turbulent_work_model(call_.grid, call_.zr, bytes);
    if (call_.f.solid) return masked_pressure_work_model(call_.grid, call_.zr, bytes);
    if (stage_ == ProjectionStage::momentum && call_.f.nut)
      return momentum_eddy_work_model(call_.grid, call_.zr, bytes, call_.prm.scheme, false);
    return work_model(stage_, call_.grid, call_.zr, int(sizeof(T)), call_.prm.scheme, false);
  }
  void* stream() const override { return stream_; }

 private:
  static bool is_workspace(const std::string& name) {
    for (const char* w : kObstacleWorkspace)
      if (name == w) return true;
    return false;
  }
  // The flags of a seeded city (never random: the obstacle logic is only meaningful on blocks) and
  // the list of points the obstacle logic may change.
  void set_city(const Grid& g, bool gpu) {
    const std::vector<double> city = fixture_city(g);
    const std::vector<T> flags(city.begin(), city.end());
    if (gpu) device::stream_sync(stream_);  // the random fill of every field runs on the stream first
    fields_.upload("solid", flags);
    call_.f.solid = fields_["solid"];
    cells_ = obstacle_cell_list(g, flags);
    call_.obstacle_cells.count = cells_.size();
    call_.obstacle_cells.index = cells_.data();
    if (gpu && !cells_.empty()) {
      const std::size_t bytes = cells_.size() * sizeof(std::uint32_t);
      cells_device_ = device::alloc(bytes, "fixture obstacle cells");
      device::copy_to_device(cells_device_, cells_.data(), bytes);
      call_.obstacle_cells.index = static_cast<const std::uint32_t*>(cells_device_);
    }
  }

  ProjectionStage stage_;
  std::vector<std::uint32_t> cells_;
  void* cells_device_ = nullptr;
  FieldSet<T> fields_;
  StageCall<T> call_;
  void* stream_ = nullptr;
  void* scratch_ = nullptr;
  double* out_ = nullptr;
  double host_out_ = 0;
};

// What every projection kind shares; each registration below adds what differs.
StageKind kind(ProjectionStage s, std::string summary, std::vector<std::string> reads, std::vector<std::string> writes) {
  StageKind k;
  k.solver = "projection";
  k.name = stage_name(s);
  k.summary = std::move(summary);
  k.reads = std::move(reads);
  k.writes = std::move(writes);
  k.workloads = {"euler"};  // the fixture's time scheme (only momentum depends on it)
  k.tuning_axes = {"bx", "by", "sz", "pf", "mb", "b"};
  k.tag_vocabulary = {{"memory", {"global", "shared", "register"}},
                      {"cta", {"1d", "2d"}},
                      {"traversal", {"zmarch"}},
                      {"pipelining", {"registers", "cp_async", "software"}},
                      {"copy", {"tma"}},
                      {"sync", {"every_level", "mbarrier"}},
                      {"faces", {"carried"}},
                      {"prefetch", {"l1_one_level"}},
                      {"points_per_thread", {"2"}},
                      {"access", {"vector2"}},
                      {"cache_hints", {"streaming"}},
                      {"reduce", {"atomic", "buffer", "library", "serial_sum", "omp_reduction"}},
                      {"atomic", {"thread", "warp", "block"}}};
  k.default_gpu_variant = "global_2d";
  k.flops_per_point = [s](const std::string& workload) {
    return flops_per_point(s, workload == "ab2" ? TimeScheme::adams_bashforth2 : TimeScheme::euler);
  };
  set_fixture<ProjectionFixture>(k);
  return k;
}

StageKind momentum_kind() {
  StageKind k = kind(ProjectionStage::momentum, "u* = u + dt RHS(u) (Euler or Adams-Bashforth 2), on zr",
                     {"u", "v", "w", "hu", "hv", "hw"}, {"us", "vs", "ws", "hu", "hv", "hw"});
  // eddy: Adams-Bashforth 2 with a random nut (the urban runs' form), only variants that take nut.
  k.workloads = {"euler", "ab2", "eddy"};
  k.workload_requires_tag["eddy"] = {"viscosity", "eddy"};
  k.tag_vocabulary["viscosity"] = {"eddy"};
  k.flops_per_point = [](const std::string& w) {
    if (w == "eddy") return momentum_eddy_flops_per_point(TimeScheme::adams_bashforth2, false);
    return flops_per_point(ProjectionStage::momentum, w == "ab2" ? TimeScheme::adams_bashforth2 : TimeScheme::euler);
  };
  k.tolerance_ulps = 256;  // ~90 operations a component
  k.default_gpu_variant = "global_2d_zloop";
  return k;
}

StageKind pressure_kind() {
  StageKind k = kind(ProjectionStage::pressure, "one Jacobi sweep p_new <- J(p, div / dt), on zr (masked by solid: Eq. 3.3)",
                     {"p", "div"}, {"p_new"});
  // The masked sweep of the urban cases, on a seeded city's flags: only variants that honour the flags.
  k.workloads = {"euler", "obstacles"};
  k.workload_requires_tag["obstacles"] = {"obstacles", "masked"};
  k.tag_vocabulary["obstacles"] = {"masked"};
  k.flops_per_point = [](const std::string& w) {
    return w == "obstacles" ? masked_jacobi_flops_per_point() : flops_per_point(ProjectionStage::pressure, TimeScheme::euler);
  };
  k.default_gpu_variant = "jacobi_global_2d_zloop";
  return k;
}

StageKind obstacles_kind() {
  StageKind k = kind(ProjectionStage::obstacles,
                     "obstacle logic (thesis Eqs. 3.4-3.11) on us vs ws in place, whole slab; ut vt wt workspace",
                     {"us", "vs", "ws", "solid"}, {"us", "vs", "ws"});
  k.tolerance_ulps = 8;  // sums of three values: roundoff only
  k.tag_vocabulary["passes"] = {"thesis_four", "fused", "in_kernel"};
  k.tag_vocabulary["points"] = {"all", "listed"};
  k.default_gpu_variant = "compact_list";
  return k;
}

StageKind nu_turbulent_kind() {
  StageKind k = kind(ProjectionStage::nu_turbulent, "nut = (Cs Delta)^2 sqrt(SS) (Smagorinsky, App. B.9), on zr",
                     {"u", "v", "w"}, {"nut"});
  k.tolerance_ulps = 64;  // ~90 operations and a square root
  k.flops_per_point = [](const std::string&) { return nu_turbulent_flops_per_point(); };
  return k;
}

StageKind reduce_kind() {
  StageKind k = kind(ProjectionStage::reduce, "sum over the interior of (a - b)^2, in double", {"p_new", "p"}, {});
  k.tolerance_absolute = 1e-10;  // sums in double whatever the precision
  k.scalar_output = true;
  k.default_gpu_variant = "buffer_two_pass";
  return k;
}

const StageKindRegistrar kinds[] = {
    StageKindRegistrar{momentum_kind()},
    StageKindRegistrar{kind(ProjectionStage::velocity_bc, "ghost cells of us vs ws", {"us", "vs", "ws"}, {"us", "vs", "ws"})},
    StageKindRegistrar{kind(ProjectionStage::divergence, "div = D u*, on zr", {"us", "vs", "ws"}, {"div"})},
    StageKindRegistrar{pressure_kind()},
    StageKindRegistrar{kind(ProjectionStage::pressure_bc, "ghost cells of p", {"p"}, {"p"})},
    StageKindRegistrar{kind(ProjectionStage::correction, "u* -= dt grad p, on zr", {"us", "vs", "ws", "p"}, {"us", "vs", "ws"})},
    StageKindRegistrar{reduce_kind()},
    StageKindRegistrar{obstacles_kind()},
    StageKindRegistrar{nu_turbulent_kind()},
};

}  // namespace

std::vector<std::string> projection_sections() {
  std::vector<std::string> s = projection_stage_names();
  for (const char* h : {"halo_predictor", "halo_pressure", "halo_correction", "halo_nu_turbulent"}) s.push_back(h);
  return s;
}

}  // namespace nsb
