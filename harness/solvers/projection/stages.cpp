// The projection solver's stage kinds: what each reads and writes, its work model, tolerance, tuning
// axes and tag vocabulary, and the fixture on which `nsbench verify`, `nsbench stages` and
// nsbench-micro run any of its variants.
#include <cmath>

#include "projection/models.hpp"
#include "projection/projection_solver.hpp"
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

// Every field of the solver (random, never zero), a StageCall wired to them, step parameters and the
// reduction's scratch and result; one class serves every projection stage kind.
template <class T>
class ProjectionFixture final : public StageFixture<T> {
 public:
  explicit ProjectionFixture(const FixtureSpec& s)
      : stage_(stage_of(s.stage)), fields_(s.grid.padded_points(), s.backend == Backend::cuda) {
    const bool gpu = s.backend == Backend::cuda;
    for (const char* name : kFixtureFields) fields_.add(name);
    if (gpu) {
      stream_ = device::stream_create();
      scratch_ = device::alloc(kReduceScratchBytes, "fixture scratch");
      out_ = static_cast<double*>(device::alloc(sizeof(double), "fixture result"));
    }
    if (s.verify) fields_.fill_random_host(s.seed);
    else fields_.fill_random_device(1000, stream_);
    StageCall<T>& c = call_;
    c.grid = s.grid;
    c.zr = ZRange::interior(s.grid);
    c.f = field_pointers(fields_);
    c.bc = BoundaryRules<T>::make(s.verify ? mixed_boundaries() : cavity_boundaries());
    if (s.verify) {
      c.prm.dt = T(0.01), c.prm.nu = T(0.1), c.prm.gamma = T(0.3);
      c.prm.force[0] = T(0.2), c.prm.force[1] = T(-0.1), c.prm.force[2] = T(0.05);
    } else {
      c.prm.dt = T(1e-3), c.prm.nu = T(1e-3);
    }
    c.prm.scheme = s.workload == "ab2" ? TimeScheme::adams_bashforth2 : TimeScheme::euler;
    c.prm.first_step = false;
    c.prm.coef = make_grid_coef<T>(s.grid);
    c.exec = Exec{s.backend, 0, stream_, scratch_, gpu ? kReduceScratchBytes : 0};
    c.reduce_a = c.f.p_new, c.reduce_b = c.f.p, c.reduce_out = gpu ? out_ : &host_out_;
  }
  ~ProjectionFixture() override {
    if (!stream_) return;
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
    for (const std::string& name : fields_.names()) out.emplace_back(name, fields_.buffer(name).download());
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
    return work_model(stage_, call_.grid, call_.zr, int(sizeof(T)), call_.prm.scheme, false);
  }
  void* stream() const override { return stream_; }

 private:
  ProjectionStage stage_;
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
  k.workloads = {"euler", "ab2"};
  k.tolerance_ulps = 256;  // ~90 operations a component
  k.default_gpu_variant = "global_2d_zloop";
  return k;
}

StageKind pressure_kind() {
  StageKind k = kind(ProjectionStage::pressure, "one Jacobi sweep p_new <- J(p, div / dt), on zr", {"p", "div"}, {"p_new"});
  k.default_gpu_variant = "jacobi_global_2d_zloop";
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
};

}  // namespace

std::vector<std::string> projection_sections() {
  std::vector<std::string> s = projection_stage_names();
  for (const char* h : {"halo_predictor", "halo_pressure", "halo_correction"}) s.push_back(h);
  return s;
}

}  // namespace nsb
