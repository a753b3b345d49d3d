// The flow solver's stage kinds (Gohari et al. 2012, Sec. 2.2 and 4): what each reads and writes, its
// work model, tuning axes and tag vocabulary. The fixture (fixture.hpp) serves all of them and the grid
// generator's ogrid/sweep (harness/solvers/ogrid/stages.cpp).
#include "grid2d/fixture.hpp"

namespace nsb {
namespace {

// The paper's two GPU methods and the ablations of notes Sec. 6.1 are tag values: memory (where the
// 9-point neighbours come from), cta (the block's shape), reduce (how the residual's maximum is formed:
// one atomic per warp from registers, one per block after a shared-memory tree, a per-block buffer and
// a second kernel, or the threadfence last-block pattern of the paper's "memory fence").
std::map<std::string, std::vector<std::string>> vocabulary() {
  return {{"memory", {"global", "shared"}},
          {"cta", {"1d", "2d"}},
          {"reduce", {"warp_atomic", "block_atomic", "buffer", "last_block"}},
          {"method", {"regular", "present", "ablation"}}};
}

StageKind kind(const char* name, std::string summary, std::vector<std::string> reads, std::vector<std::string> writes,
               double (*flops)()) {
  StageKind k;
  k.solver = "streamvort";
  k.name = name;
  k.summary = std::move(summary);
  k.reads = std::move(reads);
  k.writes = std::move(writes);
  k.tuning_axes = {"bx", "by", "b", "co"};  // co: the shared-memory carve-out of the present variants
  k.tag_vocabulary = vocabulary();
  k.default_gpu_variant = "global_2d";
  k.flops_per_point = [flops](const std::string&) { return flops ? flops() : 10.0; };
  k.verify_grid = as_streamvort_grid;
  set_fixture<StreamvortFixture>(k);
  return k;
}

// Vorticity's workloads: laminar (nu = 1/Re), turbulent (L(nu_eff omega), nu_eff a third 9-point field) and
// upwind2 (laminar with limited 2nd-order upwinding, formulas.hpp, which also reads omega two nodes away).
StageKind vorticity_kind() {
  StageKind k = kind("vorticity",
                     "omega_new = omega + dt (L(nu omega) - U omega_xi - V omega_eta), hybrid central / 1st-order upwind (Eq. 7)",
                     {"omega", "psi", "ca", "cb", "cg", "p", "q", "ij", "nu_eff"}, {"omega_new"}, nullptr);
  k.workloads = {"laminar", "turbulent", "upwind2"};
  k.flops_per_point = [](const std::string& w) {
    return w == "turbulent" ? turbulent_vorticity_flops() : vorticity_flops(vorticity_convection(w));
  };
  return k;
}

// Baldwin-Lomax walks wall-normal columns: its GPU variants map threads to xi columns (b = threads a block).
StageKind turbulence_kind() {
  StageKind k = kind("turbulence", "Baldwin-Lomax eddy viscosity along each xi column, nu_eff = nu + nu_t",
                     {"psi", "omega", "ca", "cb", "cg", "wall_dist"}, {"nu_eff"}, &turbulence_flops);
  k.default_gpu_variant = "global_columns";
  return k;
}

// SOR's colouring needs an even nx on the periodic O-grid: verify's odd sizes are rounded up in xi.
StageKind sor_kind() {
  StageKind k = kind("stream_sor", "one four-colour SOR sweep of L psi = -omega in place, residual max |psi_new - psi|",
                     {"psi", "omega", "ca", "cb", "cg", "p", "q"}, {"psi"}, &stream_flops);
  k.verify_grid = [](const Grid& g) {
    Grid s = as_streamvort_grid(g);
    s.nx += s.nx & 1;
    return s;
  };
  k.default_gpu_variant = "global_2d_colours";
  return k;
}

const StageKindRegistrar kinds[] = {
    StageKindRegistrar{vorticity_kind()},
    StageKindRegistrar{kind("stream", "one over-relaxed Jacobi sweep of L psi = -omega, residual max |psi_new - psi|",
                            {"psi", "omega", "ca", "cb", "cg", "p", "q"}, {"psi_new"}, &stream_flops)},
    StageKindRegistrar{sor_kind()},
    StageKindRegistrar{turbulence_kind()},
    StageKindRegistrar{kind("boundary", "wall vorticity -2 cg (psi_1 - psi_0), far-field omega (0 in, copied out)",
                            {"psi", "cg", "x", "y"}, {"omega"}, nullptr)},
};

}  // namespace

// Shared with harness/solvers/ogrid/stages.cpp.
std::map<std::string, std::vector<std::string>> streamvort_tag_vocabulary() { return vocabulary(); }

}  // namespace nsb
