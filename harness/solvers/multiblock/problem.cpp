// The multi-block solver as the executor sees it: its case (conjugate_cylinder), sections and stages,
// and a case set up for runs (initial state, a solver, the checks).
//
// Command line: --case conjugate_cylinder --grid NxNx13: 13 blocks of N x N nodes (the paper's G1..G4 are
// N = 129, 257, 513, 1033; mesh.hpp). Re = 2e5 and M = 0.2 are fixed (formulas.hpp); the time step is
// local (steady run), so --dt, --re and --gamma are refused. `--case-param multigrid=L` turns on the CPU
// multigrid stand-in with L coarse levels (multigrid.hpp; at most what the blocks allow, 0 = off);
// `--case-param exchange=neighbours` sends ranks only what their blocks' neighbours need (host_side.hpp;
// default allgather).
#include <memory>
#include <stdexcept>
#include <string>

#include "case_checks.hpp"
#include "multiblock/time_loop.hpp"
#include "multiblock/multigrid.hpp"
#include "slab_assigner.hpp"

namespace nsb {
namespace {

std::string grid_text(const CaseOptions& o) {
  return std::to_string(o.nx) + "x" + std::to_string(o.ny) + "x" + std::to_string(o.nz);
}

void check_case(const CaseOptions& o) {
  const CaseOptions defaults;
  if (!o.name.empty() && o.name != "conjugate_cylinder")
    throw std::invalid_argument("unknown case '" + o.name + "' for the multiblock solver; known cases: conjugate_cylinder");
  if (o.nz != kMbBlocks || o.nx != o.ny)
    throw std::invalid_argument("the conjugate cylinder is 13 blocks of N x N nodes: give --grid NxNx13 (the paper's "
                                "G1..G4: 129x129x13 .. 1033x1033x13), not " + grid_text(o));
  if (o.nx < 9) throw std::invalid_argument("blocks of at least 9 x 9 nodes, not " + grid_text(o));
  if (o.re != defaults.re) throw std::invalid_argument("--re: the case's Reynolds number is the paper's, 2e5 (fixed)");
  if (o.gamma != defaults.gamma) throw std::invalid_argument("--gamma has no meaning here (the smoothing is fixed)");
  if (o.dt != 0) throw std::invalid_argument("--dt: the multiblock solver marches local time steps (deltatp)");
  refuse_unused_case_options(o, "multiblock", {"safety"}, "it marches local time steps of a fixed CFL (deltatp)");
}

class MbProblem final : public ProblemImpl<MbProblem>, public SlabAssigner {
 public:
  explicit MbProblem(const CaseOptions& o) {
    check_case(o);
    mesh_ = std::make_shared<const MbMesh>(make_mb_mesh(o.nx));
    const auto params = case_params(o, {"multigrid", "exchange"});
    const int wanted = int(number_param(params, "multigrid", 0));
    const auto exchange = params.find("exchange");
    if (exchange != params.end() && exchange->second != "allgather" && exchange->second != "neighbours")
      throw std::invalid_argument("--case-param exchange=" + exchange->second + ": allgather (default) or neighbours");
    exchange_ = exchange != params.end() && exchange->second == "neighbours" ? MbExchange::neighbours : MbExchange::allgather;
    multigrid_ = mb_multigrid_levels(o.nx, wanted);
    if (wanted < 0 || (wanted > 0 && multigrid_ == 0))
      throw std::invalid_argument("--case-param multigrid=" + std::to_string(wanted) + ": blocks of " + std::to_string(o.nx) +
                                  " nodes allow no coarse level (N - 1 must halve evenly, to at least 5 nodes)");
  }

  const Grid& grid() const override { return mesh_->grid; }
  bool periodic_z() const override { return false; }
  double dt() const override { return 1; }  // one iteration of local time steps
  nlohmann::json describe() const override {
    const double per_block = double(mesh_->n) * mesh_->n;
    return {{"case", "conjugate_cylinder"}, {"block_nodes", mesh_->n}, {"blocks", kMbBlocks},
            {"fluid_blocks", kMbFluidBlocks}, {"points", per_block * kMbBlocks}, {"reynolds", mbc::reynolds},
            {"mach", mbc::mach}, {"representative", "nsbench's Ni Lax-Wendroff k-omega DES solver, not MBFLO2"},
            {"multigrid_levels", multigrid_}, {"exchange", exchange_ == MbExchange::neighbours ? "neighbours" : "allgather"}};
  }
  void check_options(const SolverOptions& o) const override {
    const SolverOptions defaults;
    if (o.scheme != defaults.scheme || o.poisson_method != defaults.poisson_method ||
        o.jacobi_iterations != defaults.jacobi_iterations || o.jacobi_tol != defaults.jacobi_tol)
      throw std::runtime_error("--scheme, --poisson and --jacobi-* have no meaning for the multiblock solver");
  }

  template <class T>
  HostState<T> initial() const {
    return mb_initial_state<T>(*mesh_);
  }
  // The paper's block-to-rank assignment (mesh.hpp mb_rank_blocks): a rank's slab is its blocks' planes.
  std::vector<Slab> assign_slabs(int ranks) const override {
    const std::vector<std::vector<int>> blocks = mb_rank_blocks(ranks);
    std::vector<Slab> slabs;
    for (int r = 0; r < ranks; ++r)
      slabs.push_back(Slab{r, ranks, blocks[std::size_t(r)].front() + 1, int(blocks[std::size_t(r)].size()), r - 1,
                           r + 1 < ranks ? r + 1 : -1});
    return slabs;
  }

  template <class T>
  std::unique_ptr<Solver<T>> solver(const ResolvedRecipe& r, const SolverOptions& o, const RankContext* ctx) const {
    return std::make_unique<MbSolver<T>>(mesh_, r, o, ctx && ctx->decomposed() ? ctx : nullptr, multigrid_, exchange_);
  }
  template <class T>
  nlohmann::json check(const HostState<T>&, bool) const {
    return {{"kind", "none"},
            {"detail", "the paper reports no validation data (Mach and temperature fields as pictures only); "
                       "tests check free-stream preservation and interface conservation"}};
  }
  template <class T>
  std::size_t bytes(const Grid& g, const SolverOptions&) const {
    return MbSolver<T>::device_bytes(g);
  }

 private:
  std::shared_ptr<const MbMesh> mesh_;
  int multigrid_ = 0;  // the stand-in's coarse levels (0: single grid)
  MbExchange exchange_ = MbExchange::allgather;  // between ranks (host_side.hpp)
};

const SolverRegistrar reg{SolverDef{
    .name = "multiblock",
    .description = "Kemal, Davis & Owens (2015): a representative 2D multi-block cell-vertex finite-volume solver "
                   "(Ni Lax-Wendroff, k-omega DES, conjugate heat transfer) with the paper's nine routines",
    .cases = {"conjugate_cylinder"},
    .sections = mb_sections(),
    .stages = std::vector<std::string>(std::begin(kMbStageNames), std::end(kMbStageNames)),
    .make_problem = [](const CaseOptions& o) -> std::unique_ptr<Problem> { return std::make_unique<MbProblem>(o); },
}};

}  // namespace
}  // namespace nsb
