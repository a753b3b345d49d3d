// Boundary conditions, as ghost-cell rules shared by the CPU reference and every GPU variant.
//
// Each of the six faces has a type. On a face normal to axis A with n interior cells along A:
//  - wall (no-slip, optionally moving): the normal velocity component is zero on the face (index 0 on
//    the low side, n on the high side; the value beyond it, n+1, is set to zero too); a tangential
//    component gets ghost = 2*U_wall - interior, so the face average equals the wall velocity.
//  - free_slip (symmetry plane): normal component zero as for a wall; tangential ghost = interior.
//  - periodic: ghost = the interior value on the opposite side, for every field.
//  - neighbour: the face is cut by the domain decomposition; the ghost layer is filled by the halo
//    exchange from the neighbouring rank, so the ghost rules leave it (and the face value) alone.
//  - inflow (urban cases): the normal component on the face is the inflow profile (uniform, or a log
//    law over the face's first tangential axis, y on an x face); tangential components are zero on the
//    face (ghost = -interior).
//  - outflow (urban cases): zero gradient. The normal component on the face itself is computed by the
//    predictor and corrected by the projection (on a high face: index n, which the interior stages
//    compute); the ghost beyond it and the tangential ghosts copy the interior. Convective (a high
//    face with a Courant number C = U_c dt / h > 0): those ghosts obey da/dt + U_c da/dx = 0 instead,
//    first-order upwind in time and space from the velocity of the step's start (u v w of the call):
//    ghost = old ghost - C (old ghost - old interior); where the call has none (the initial state) they
//    copy the interior.
// Pressure: homogeneous Neumann (ghost = interior) on walls, free-slip planes and inflows, periodic
// copies, and p = 0 on an outflow face (ghost = -interior), which makes the pressure equation of an
// open domain well posed and lets the projection set the outflow flux.
//
// Faces are applied axis by axis, x then y then z, each sweep covering the whole padded face (ghost
// rows of the other axes included). That order decides the edge and corner ghosts, so every variant
// must sweep in the same order; within one sweep no value written is read by another point.
#pragma once

#include <cmath>

#include "grid.hpp"

namespace nsb {

enum class FaceType : int { wall = 0, free_slip = 1, periodic = 2, neighbour = 3, inflow = 4, outflow = 5 };

enum class InflowProfile : int { uniform = 0, log_law = 1 };

struct FaceBC {
  FaceType type = FaceType::wall;
  double wall_velocity[3] = {0, 0, 0};  // tangential wall velocity (u, v, w); the normal part is ignored
  // Inflow faces: speed along +axis at the top of the profile, its shape, the roughness length z0,
  // the spacing and extent of the tangential axis the profile varies along (the height).
  InflowProfile profile = InflowProfile::uniform;
  double inflow_speed = 0, roughness = 0, profile_spacing = 0, profile_height = 0;
  // Outflow faces: the convective condition's Courant number U_c dt / h (0: zero gradient).
  double convective_courant = 0;
};

struct BoundarySpec {
  FaceBC face[3][2];  // [axis][side], side 0 = low, 1 = high
  bool periodic(int axis) const { return face[axis][0].type == FaceType::periodic; }
};

// The face data a kernel needs, trivially copyable, in the solver's precision.
template <class T>
struct FaceRule {
  int type;
  int profile;
  T wall[3];
  double inflow[4];  // speed, roughness, spacing, height (double: the log law is evaluated in double)
  T courant;         // outflow: U_c dt / h of the convective condition (0: zero gradient)
};
template <class T>
struct BoundaryRules {
  FaceRule<T> face[3][2];
  static BoundaryRules make(const BoundarySpec& s) {
    BoundaryRules r{};
    for (int a = 0; a < 3; ++a)
      for (int side = 0; side < 2; ++side) {
        r.face[a][side].type = int(s.face[a][side].type);
        for (int c = 0; c < 3; ++c) r.face[a][side].wall[c] = T(s.face[a][side].wall_velocity[c]);
        const FaceBC& f = s.face[a][side];
        r.face[a][side].profile = int(f.profile);
        r.face[a][side].inflow[0] = f.inflow_speed, r.face[a][side].inflow[1] = f.roughness;
        r.face[a][side].inflow[2] = f.profile_spacing, r.face[a][side].inflow[3] = f.profile_height;
        r.face[a][side].courant = T(f.convective_courant);
      }
    return r;
  }
};

// Extent of the face-sweep for axis A: the two tangential padded extents.
NSB_HD inline void face_extent(const Grid& g, int axis, int& n1, int& n2) {
  const int N[3] = {g.NX(), g.NY(), g.NZ()};
  n1 = N[(axis + 1) % 3];
  n2 = N[(axis + 2) % 3];
}

// Padded index of the point at position `along` on axis A and tangential position (t1, t2), where
// t1 runs along axis (A+1)%3 and t2 along (A+2)%3.
NSB_HD inline std::size_t face_index(const Grid& g, int axis, int along, int t1, int t2) {
  if (axis == 0) return g.idx(along, t1, t2);
  if (axis == 1) return g.idx(t2, along, t1);
  return g.idx(t1, t2, along);
}

// The inflow speed at tangential position t1 (cell centres along the face's first tangential axis):
// uniform, or the log law U ln((y + z0) / z0) / ln((H + z0) / z0), which reaches U at the top y = H.
template <class T>
NSB_HD inline T inflow_speed(const FaceRule<T>& r, int t1) {
  const double speed = r.inflow[0];
  if (r.profile != int(InflowProfile::log_law)) return T(speed);
  const double z0 = r.inflow[1], y = (t1 - 0.5) * r.inflow[2], h = r.inflow[3];
  if (y <= 0) return T(0);
  return T(speed * log((y + z0) / z0) / log((h + z0) / z0));
}

// The convective outflow's ghost (da/dt + U_c da/dx = 0, upwind): from the old ghost and interior.
template <class T>
NSB_HD inline T convected_ghost(T old_ghost, T old_interior, T courant) {
  return old_ghost - courant * (old_ghost - old_interior);
}

// Velocity ghost rule for both sides of axis A at one tangential position. vel[c] is component c;
// old[c] the same component at the step's start (null: none), read by a convective outflow only.
template <class T>
NSB_HD inline void velocity_bc_line(T* const vel[3], const T* const old[3], const Grid& g, const BoundaryRules<T>& r,
                                    int axis, int t1, int t2) {
  const int n = axis == 0 ? g.nx : axis == 1 ? g.ny : g.nz;
  auto at = [&](int along) { return face_index(g, axis, along, t1, t2); };
  const FaceRule<T>& lo = r.face[axis][0];
  const FaceRule<T>& hi = r.face[axis][1];
  const bool set_lo = lo.type != int(FaceType::neighbour), set_hi = hi.type != int(FaceType::neighbour);
  const bool convective = hi.type == int(FaceType::outflow) && hi.courant > T(0) && old[0];
  for (int c = 0; c < 3; ++c) {
    T* f = vel[c];
    if (lo.type == int(FaceType::periodic)) {
      f[at(0)] = f[at(n)];
      f[at(n + 1)] = f[at(1)];
      continue;
    }
    if (c == axis) {  // normal component: zero through a wall, the profile on an inflow, free on an outflow
      if (lo.type == int(FaceType::inflow)) f[at(0)] = inflow_speed(lo, t1);
      else if (lo.type == int(FaceType::outflow)) f[at(0)] = f[at(1)];
      else if (set_lo) f[at(0)] = T(0);
      if (hi.type == int(FaceType::inflow)) f[at(n)] = f[at(n + 1)] = inflow_speed(hi, t1);
      else if (hi.type == int(FaceType::outflow)) f[at(n + 1)] = f[at(n)];
      else if (set_hi) f[at(n)] = T(0), f[at(n + 1)] = T(0);
    } else {
      // Walls and inflows hold the tangential value on the face (ghost = 2 U_face - interior); free-slip
      // planes and outflows copy it.
      const bool lo_fixed = lo.type == int(FaceType::wall) || lo.type == int(FaceType::inflow);
      const bool hi_fixed = hi.type == int(FaceType::wall) || hi.type == int(FaceType::inflow);
      const T lo_sign = lo_fixed ? T(-1) : T(1);
      const T hi_sign = hi_fixed ? T(-1) : T(1);
      const T lo_wall = lo.type == int(FaceType::wall) ? T(2) * lo.wall[c] : T(0);
      const T hi_wall = hi.type == int(FaceType::wall) ? T(2) * hi.wall[c] : T(0);
      if (set_lo) f[at(0)] = lo_wall + lo_sign * f[at(1)];
      if (set_hi) f[at(n + 1)] = hi_wall + hi_sign * f[at(n)];
    }
    // A convective outflow's ghost beyond the face, normal and tangential components alike.
    if (convective) f[at(n + 1)] = convected_ghost(old[c][at(n + 1)], old[c][at(n)], hi.courant);
  }
}

template <class T>
NSB_HD inline void pressure_bc_line(T* p, const Grid& g, const BoundaryRules<T>& r, int axis, int t1, int t2) {
  const int n = axis == 0 ? g.nx : axis == 1 ? g.ny : g.nz;
  auto at = [&](int along) { return face_index(g, axis, along, t1, t2); };
  if (r.face[axis][0].type == int(FaceType::periodic)) {
    p[at(0)] = p[at(n)];
    p[at(n + 1)] = p[at(1)];
  } else {
    const int lo = r.face[axis][0].type, hi = r.face[axis][1].type;
    if (lo == int(FaceType::outflow)) p[at(0)] = -p[at(1)];
    else if (lo != int(FaceType::neighbour)) p[at(0)] = p[at(1)];
    if (hi == int(FaceType::outflow)) p[at(n + 1)] = -p[at(n)];
    else if (hi != int(FaceType::neighbour)) p[at(n + 1)] = p[at(n)];
  }
}

}  // namespace nsb
