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
// Pressure: homogeneous Neumann (ghost = interior) on walls and free-slip planes, periodic copies.
//
// Faces are applied axis by axis, x then y then z, each sweep covering the whole padded face (ghost
// rows of the other axes included). That order decides the edge and corner ghosts, so every variant
// must sweep in the same order; within one sweep no value written is read by another point.
#pragma once

#include "grid.hpp"

namespace nsb {

enum class FaceType : int { wall = 0, free_slip = 1, periodic = 2, neighbour = 3 };

struct FaceBC {
  FaceType type = FaceType::wall;
  double wall_velocity[3] = {0, 0, 0};  // tangential wall velocity (u, v, w); the normal part is ignored
};

struct BoundarySpec {
  FaceBC face[3][2];  // [axis][side], side 0 = low, 1 = high
  bool periodic(int axis) const { return face[axis][0].type == FaceType::periodic; }
};

// The face data a kernel needs, trivially copyable, in the solver's precision.
template <class T>
struct FaceRule {
  int type;
  T wall[3];
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

// Velocity ghost rule for both sides of axis A at one tangential position. vel[c] is component c.
template <class T>
NSB_HD inline void velocity_bc_line(T* const vel[3], const Grid& g, const BoundaryRules<T>& r, int axis, int t1,
                                    int t2) {
  const int n = axis == 0 ? g.nx : axis == 1 ? g.ny : g.nz;
  auto at = [&](int along) { return face_index(g, axis, along, t1, t2); };
  const FaceRule<T>& lo = r.face[axis][0];
  const FaceRule<T>& hi = r.face[axis][1];
  const bool set_lo = lo.type != int(FaceType::neighbour), set_hi = hi.type != int(FaceType::neighbour);
  for (int c = 0; c < 3; ++c) {
    T* f = vel[c];
    if (lo.type == int(FaceType::periodic)) {
      f[at(0)] = f[at(n)];
      f[at(n + 1)] = f[at(1)];
      continue;
    }
    if (c == axis) {  // normal component: zero through the wall
      if (set_lo) f[at(0)] = T(0);
      if (set_hi) f[at(n)] = T(0), f[at(n + 1)] = T(0);
    } else {
      const T lo_sign = lo.type == int(FaceType::wall) ? T(-1) : T(1);
      const T hi_sign = hi.type == int(FaceType::wall) ? T(-1) : T(1);
      const T lo_wall = lo.type == int(FaceType::wall) ? T(2) * lo.wall[c] : T(0);
      const T hi_wall = hi.type == int(FaceType::wall) ? T(2) * hi.wall[c] : T(0);
      if (set_lo) f[at(0)] = lo_wall + lo_sign * f[at(1)];
      if (set_hi) f[at(n + 1)] = hi_wall + hi_sign * f[at(n)];
    }
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
    if (r.face[axis][0].type != int(FaceType::neighbour)) p[at(0)] = p[at(1)];
    if (r.face[axis][1].type != int(FaceType::neighbour)) p[at(n + 1)] = p[at(n)];
  }
}

}  // namespace nsb
