// The multiblock stage kinds (one per routine of Kemal, Davis & Owens 2015, plus the solver's update,
// reductions and CPU-side routines) and the one fixture they share: a 13-block mesh of n x n nodes
// (mb_fixture_grid: `nsbench stages --grid 1033x1033x13` is 1033; verify's odd grids give 39 and 47) with only
// the fields the routine reads and writes allocated (as the paper's per-routine tests, Sec. V.B), filled
// with a valid random flow (positive density, pressure, k, omega, viscosities) and the mesh's geometry.
#include <cmath>
#include <cstdint>
#include <memory>
#include <stdexcept>

#include "device.hpp"
#include "fields.hpp"
#include "multiblock/host_side.hpp"
#include "multiblock/multigrid.hpp"
#include "multiblock/stage_call.hpp"
#include "stage_kind.hpp"

namespace nsb {
namespace {

MbStage stage_of(const std::string& name) {
  for (int s = 0; s < int(MbStage::count); ++s)
    if (name == kMbStageNames[s]) return MbStage(s);
  throw std::logic_error("no multiblock stage '" + name + "'");
}

std::vector<int> all_blocks() {
  std::vector<int> b(kMbBlocks);
  for (int i = 0; i < kMbBlocks; ++i) b[std::size_t(i)] = i;
  return b;
}

// A value in [0, 1) from (seed, field, node): the fixtures' random inputs, cheap enough for 1033^2 blocks.
double unit_hash(unsigned seed, int field, std::size_t n) {
  std::uint64_t z = std::uint64_t(seed) * 0x9E3779B97F4A7C15ull + std::uint64_t(field) * 0xBF58476D1CE4E5B9ull + n;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return double(z >> 11) * 0x1.0p-53;
}

// Field f's random value at node n: magnitudes in [0.5, 1.5) x a scale, signs where the field may have one.
double random_value(unsigned seed, int f, std::size_t n) {
  const double u = unit_hash(seed, f, n), r = 0.5 + u;
  const double sign = unit_hash(seed + 7, f, n) < 0.5 ? -1 : 1;
  switch (f) {
    case kRho: case kTs: return r;
    case kRu: case kRv: return 0.3 * sign * r;
    case kRk: return 1e-3 * r;
    case kRw: return 0.1 * r;
    case kMu: case kMut: return 1e-4 * r;
    case kDt: return 1e-3 * r;
    default: return 1e-3 * sign * r;  // stresses, fluxes, sources, changes
  }
}

// The multigrid stand-in's levels in the fixture (as many as the block allows up to this: 3 at G4, 1 at
// verify's 39 and 47).
constexpr int kFixtureMultigridLevels = 3;

template <class T>
class MbFixture final : public StageFixture<T> {
 public:
  explicit MbFixture(const FixtureSpec& s)
      : stage_(stage_of(s.stage)), mesh_(make_mb_mesh(s.grid.nx)), fields_(mesh_.grid.padded_points(), gpu(s)) {
    const MbStageFields sf = mb_stage_fields(stage_);
    for (const auto* list : {&sf.reads, &sf.writes})
      for (int f : *list)
        if (!fields_.has(kMbFieldNames[f])) fields_.add(kMbFieldNames[f]);
    if (stage_ == MbStage::flux || stage_ == MbStage::fluxtrb)
      for (int f = kMbScratch; f < kMbFieldCount; ++f) fields_.add(kMbFieldNames[f]);
    fill(s.seed);
    if (gpu(s)) {
      stream_ = device::stream_create();
      scratch_ = Buffer<double>(std::size_t(1) << 19, true, "multiblock reduction partials");
    }
    call_.grid = mesh_.grid;
    for (int f = 0; f < kMbFieldCount; ++f) call_.a.f[f] = fields_.has(kMbFieldNames[f]) ? fields_[kMbFieldNames[f]] : nullptr;
    const std::vector<int> blocks = mb_blocks_of(all_blocks(), stage_);
    for (int b : blocks) call_.blocks[call_.nblocks++] = b;
    call_.scalar = &scalar_;
    call_.levels = kFixtureMultigridLevels;
    if (stage_ == MbStage::ifsum || stage_ == MbStage::bc || stage_ == MbStage::multigrid) {
      store_ = std::make_unique<MbHostStore<T>>(mesh_, fields_, blocks);
      call_.host = store_->side();
    }
    call_.exec = Exec{s.backend, 0, stream_, scratch_.get(), scratch_.size() * sizeof(double)};
  }
  ~MbFixture() override {
    if (stream_) device::stream_destroy(stream_);
  }
  MbFixture(const MbFixture&) = delete;
  MbFixture& operator=(const MbFixture&) = delete;

  void run(const Variant& v, const Tuning& t) override {
    call_.tuning = t;
    call_.exec.backend = v.backend;
    v.fn<MbCall<T>>()(call_);
  }
  // Every state field (the scatter buffers are scratch: a variant may leave anything there).
  std::vector<std::pair<std::string, std::vector<T>>> arrays() const override {
    if (stream_) device::stream_sync(stream_);
    std::vector<std::pair<std::string, std::vector<T>>> out;
    for (const std::string& name : fields_.names())
      if (name.rfind("buf", 0) != 0) out.emplace_back(name, fields_.buffer(name).download());
    return out;
  }
  double scalar() const override { return scalar_; }
  WorkModel model() const override { return mb_work_model(stage_, mesh_, all_blocks(), int(sizeof(T))); }
  void* stream() const override { return stream_; }

 private:
  static bool gpu(const FixtureSpec& s) { return s.backend == Backend::cuda; }
  void fill(unsigned seed) {
    const std::size_t np = mesh_.grid.padded_points();
    const std::vector<double>* geometry[] = {&mesh_.x, &mesh_.y, &mesh_.xi_x, &mesh_.xi_y, &mesh_.eta_x, &mesh_.eta_y, &mesh_.hlen, &mesh_.vol};
    std::vector<T> values(np);
    for (int f = 0; f < kMbFieldCount; ++f) {
      if (!fields_.has(kMbFieldNames[f])) continue;
      for (std::size_t n = 0; n < np; ++n) {
        if (f >= kX && f <= kVol) values[n] = T((*geometry[f - kX])[n]);
        else if (f >= kMbScratch) values[n] = T(0);
        else if (f == kE) {  // positive pressure whatever the momentum: E = p / (gamma - 1) + |rho u|^2 / (2 rho)
          const double rho = random_value(seed, kRho, n), ru = random_value(seed, kRu, n), rv = random_value(seed, kRv, n);
          const double p = (0.5 + unit_hash(seed, kE, n)) / mbc::gamma;
          values[n] = T(p / (mbc::gamma - 1) + 0.5 * (ru * ru + rv * rv) / rho);
        } else {
          values[n] = T(random_value(seed, f, n));
        }
      }
      fields_.upload(kMbFieldNames[f], values);
    }
  }

  MbStage stage_;
  MbMesh mesh_;
  FieldSet<T> fields_;
  std::unique_ptr<MbHostStore<T>> store_;
  Buffer<double> scratch_;
  MbCall<T> call_;
  double scalar_ = 0.0 / 0.0;
  void* stream_ = nullptr;
};

// The 13-block mesh a tool's grid stands for: NxNx13 is itself (`nsbench stages --grid 1033x1033x13`);
// another grid gives blocks of nx nodes a side, two more where ny differs from nx, so that distinct grids
// stay distinct (nsbench-micro's 256x32x256 and 256^3) and verify's odd ones stay odd (37x23x19 -> 39).
Grid mb_fixture_grid(const Grid& g) { return mb_grid(g.nx + (g.ny == g.nx ? 0 : 2)); }

StageKind kind(MbStage s, const char* summary, const char* default_gpu, double ulps) {
  StageKind k;
  k.solver = "multiblock";
  k.name = kMbStageNames[int(s)];
  k.summary = summary;
  const MbStageFields f = mb_stage_fields(s);
  for (int r : f.reads) k.reads.push_back(kMbFieldNames[r]);
  for (int w : f.writes) k.writes.push_back(kMbFieldNames[w]);
  k.tuning_axes = {"bx", "by"};
  k.tag_vocabulary = {{"memory", {"global", "shared"}},
                      {"cta", {"2d", "1d"}},
                      {"scatter", {"atomic_fp64", "atomic_cas", "buffered", "gather", "shared_atomic"}},
                      {"reduce", {"tree", "host_search"}},
                      {"copy", {"whole_arrays", "boundary_band"}},
                      {"host_memory", {"pageable", "registered", "pinned"}},
                      {"sync", {"blocking", "async", "overlap"}}};
  k.default_gpu_variant = default_gpu;
  k.tolerance_ulps = ulps;
  k.scalar_output = s == MbStage::dtmin || s == MbStage::resmax;
  k.flops_per_point = [s](const std::string&) { return mb_flops_per_point(s); };
  k.verify_grid = mb_fixture_grid;
  set_fixture<MbFixture>(k);
  return k;
}

// Scatter kinds sum four corners in an order each variant chooses (atomics: any order), and their cells'
// changes subtract nearly equal fluxes: rounding differences reach a few hundred units of the largest value.
const StageKindRegistrar kinds[] = {
    StageKindRegistrar{kind(MbStage::conjugatep, "solid heat conduction: res_T = Fo (g11 T_xixi + g22 T_etaeta) / (g11 + g22) on the solid blocks (Eq. 10)", "global_2d", 64)},
    StageKindRegistrar{kind(MbStage::lamvis, "Sutherland viscosity mu and the DES eddy viscosity mu_t (Eqs. 7-8), at fluid nodes", "global_2d", 64)},
    StageKindRegistrar{kind(MbStage::deltatp, "local time step dt = CFL h / (|u| + |v| + c + 2 (mu + mu_t) / (rho h)) at fluid nodes", "global_2d", 64)},
    StageKindRegistrar{kind(MbStage::dtmin, "min-reduction of dt over the fluid nodes (deltatp's reduction, Sec. IV.B)", "tree", 32)},
    StageKindRegistrar{kind(MbStage::stressp, "viscous stresses and heat flux at fluid nodes (central differences, node metrics)", "global_2d", 256)},
    StageKindRegistrar{kind(MbStage::stresstrb, "k and omega diffusion fluxes and sources (Eqs. 5, 6, 9) at fluid nodes", "global_2d", 256)},
    StageKindRegistrar{kind(MbStage::flux, "mean-flow Ni Lax-Wendroff cell change scattered to the 4 corners: res_rho..res_energy +=", "buffered", 1024)},
    StageKindRegistrar{kind(MbStage::fluxtrb, "k-omega Ni cell change scattered to the 4 corners: res_rho_k, res_rho_omega +=", "buffered", 1024)},
    StageKindRegistrar{kind(MbStage::ifsum, "CPU: the changes of shared interface nodes summed over their copies (boundary copies through the host)", "boundary_band", 32)},
    StageKindRegistrar{kind(MbStage::smthp, "smthp/smthu: pressure-switched 2nd and 4th difference smoothing of the mean flow, res +=", "global_2d", 256)},
    StageKindRegistrar{kind(MbStage::smthtrb, "4th difference smoothing of k and omega, res +=", "global_2d", 256)},
    StageKindRegistrar{kind(MbStage::multigrid, "CPU: a STAND-IN for Ni's multigrid with its data movement: the fluid blocks' changes restricted, smoothed on coarse levels, prolonged and added (multigrid.hpp)", "whole_arrays", 32)},
    StageKindRegistrar{kind(MbStage::update, "U += res / vol at fluid nodes, T += res_T at solid nodes", "global_2d", 64)},
    StageKindRegistrar{kind(MbStage::resmax, "convergence: max-reduction of |res_rho| / vol over the fluid nodes", "tree", 32)},
    StageKindRegistrar{kind(MbStage::bc, "CPU: boundary conditions (far field, wall, conjugate interface), shared-node copies, ghost fill", "boundary_band", 32)},
};

}  // namespace
}  // namespace nsb
