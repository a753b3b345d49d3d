// Cases: a problem set-up (geometry, boundary conditions, initial state, physical parameters,
// time-step rule and what it can be validated against).
#pragma once

#include <string>
#include <vector>

#include "grid.hpp"
#include "projection/city.hpp"
#include "projection/boundary.hpp"
#include "solver.hpp"  // CaseOptions

namespace nsb {

struct Case {
  std::string name;
  Grid grid;
  BoundarySpec bc;
  double nu = 0;
  double force[3] = {0, 0, 0};
  double u_ref = 1;  // velocity scale (lid speed, centre-line speed, vortex amplitude)
  double re_length = 1;  // length of the Reynolds number (urban: a quarter of the height, thesis)
  double dt = 0;
  double gamma = 0;
  std::string validation;  // "ghia" | "poiseuille" | "taylor_green" | "urban" | "cube"
  // Urban cases (y is the height): the buildings, the Smagorinsky constant of the nu_turbulent stage,
  // and for the cube its side in cells and its position.
  std::vector<Building> buildings;
  double smagorinsky_cs = 0.1;
  bool turbulent = false;
  double convective_outflow_speed = 0;  // U_c of a convective outflow (0: zero gradient)  // nu_t of the nu_turbulent stage added to nu in the momentum's diffusion
  int cube_cells = 0;
  Building cube{};

  bool has_obstacles() const { return !buildings.empty(); }
  // Whether the pressure equation has an open (outflow) face, which only the Jacobi sweep honours.
  bool has_outflow() const {
    for (const auto& axis : bc.face)
      for (const FaceBC& f : axis)
        if (f.type == FaceType::outflow) return true;
    return false;
  }

  // Initial velocity component c at (x, y, z).
  double initial_velocity(int c, double x, double y, double z) const;
  // Exact velocity at time t where the case has one (channel: steady profile; Taylor-Green).
  bool has_exact() const { return validation == "poiseuille" || validation == "taylor_green"; }
  double exact_velocity(int c, double x, double y, double z, double t) const;
  // Initial pressure (Taylor-Green starts from its exact pressure, so the Jacobi solve starts close).
  double initial_pressure(double x, double y, double z) const;
};

// Lists the known case names for error messages and --help.
const std::vector<std::string>& case_names();

// Throws std::invalid_argument with a message naming the problem for a bad name, grid or parameter.
Case make_case(const CaseOptions& o);

// The boundary conditions a rank applies itself: z faces with a neighbour become FaceType::neighbour.
BoundarySpec slab_bc(const BoundarySpec& global, const Slab& s);

// Stable explicit time step for central differences with Euler: the diffusive limit
// 1/(2 nu sum 1/h^2), the advective CFL limit 1/(U sum 1/h) and the cell-Reynolds limit 2 nu/U^2.
double stable_dt(const Grid& g, double nu, double u_ref);

}  // namespace nsb
