// Validation of a solution against physics: Ghia et al. (1982) centre lines for the cavity, the exact
// parabola for the channel, the exact decaying vortex for Taylor-Green.
#pragma once

#include <string>
#include <vector>

#include "projection/cases.hpp"
#include "solver.hpp"

namespace nsb {

struct ProfilePoint {
  double position, reference, computed;
};

// The urban and cube checks (the thesis has only pictures): mass balance, no flow through walls,
// still air inside buildings, the divergence over the fluid; for the cube the symmetry about its
// mid-plane and the reattachment length behind it.
struct UrbanChecks {
  double inflow_flux = 0, outflow_flux = 0;  // volume fluxes through the west and east faces
  double mass_imbalance = 0;                 // |outflow - inflow| / inflow
  double wall_normal_max = 0;     // max |velocity| on faces between a solid and a fluid cell, / U
  double solid_interior_max = 0;  // max |velocity| where both cells and all their neighbours are solid, / U
  double divergence_fluid_max = 0, divergence_fluid_rms = 0;  // div over fluid cells, in U / h
  double symmetry_max = -1;          // cube: max mirror difference about the mid-plane, / U (-1: not a cube)
  double reattachment_length = -1;   // cube: in cube heights behind its rear face (-1: none found or not a cube)
};

struct Validation {
  std::string kind;      // "ghia", "poiseuille", "taylor_green", or "none"
  std::string detail;    // what was compared (and why nothing was, when kind == "none")
  double max_error = 0;  // in units of the case's reference velocity
  double rms_error = 0;
  std::vector<ProfilePoint> u_profile, w_profile;  // Ghia: u on x = 1/2, w (Ghia's v) on z = 1/2;
                                                   // Poiseuille: u(z / H) of one column
  double energy_ratio = 0, energy_ratio_exact = 0;  // Taylor-Green: E(t)/E(0), computed and exact
  UrbanChecks urban;  // urban and cube
};

template <class T>
UrbanChecks urban_checks(const Case& c, const HostState<T>& s);

// The velocity and pressure of a projection state, by name.
template <class T>
struct ProjectionFields {
  explicit ProjectionFields(const HostState<T>& s)
      : u(s.field("u")), v(s.field("v")), w(s.field("w")), p(s.field("p")), time(s.time) {}
  const std::vector<T>&u, &v, &w, &p;
  double time;
};

template <class T>
Validation validate(const Case& c, const HostState<T>& s);

// The in-plane velocity (u, w) / U at cell centres of the plane y = 1/2 (the cavity's section), every
// ceil(n / max_points)-th cell in x and z: a picture of the flow small enough for a result file.
struct FlowSlice {
  std::vector<double> x, z;  // cell-centre positions kept
  std::vector<double> u, w;  // row-major, z rows of x values
};
template <class T>
FlowSlice centre_slice(const Case& c, const HostState<T>& s, int max_points);

// Ghia et al. (1982) Table I / II, embedded at build time from data/ghia1982_*.csv.
struct GhiaTable {
  std::vector<double> position, re100, re1000;
};
const GhiaTable& ghia_u_vertical();    // u(y) on x = 0.5
const GhiaTable& ghia_v_horizontal();  // v(x) on y = 0.5

}  // namespace nsb
