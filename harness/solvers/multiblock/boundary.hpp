// The multi-block solver's CPU-side routines (the paper keeps them on the host: Sec. II, "low-volume"
// and "divergent IF logic"): the interface sums of the scattered changes, and the boundary conditions
// with the ghost fill. They work on host arrays of every block (an undecomposed run; the paper's MPI
// exchange between ranks is the same copies between blocks of different ranks).
//
// Defaults the paper does not give (notes Sec. 7), chosen here:
//   far field      every unknown at the free stream (rho 1, u = M along x, p = 1/gamma, k_inf, omega_inf)
//   wall           no slip (rho u = rho v = 0), k = 0, omega = omega_wall; rho from the scheme;
//                  the temperature shared with the solid (below)
//   conjugate      one temperature at each interface node, from equal heat flux through the two one-sided
//                  differences: T_w = (k_s T_s / d_s + k_f T_f / d_f) / (k_s / d_s + k_f / d_f), with the
//                  fluid's laminar conductivity k_f and k_s = 10 k_f (the paper's "unified heat flux and
//                  equal temperature", Sec. II)
//   ghosts         across block faces: the neighbour's node one in; across physical faces: linear
//                  extrapolation through the boundary node
//   shared nodes   after the boundary conditions every copy takes the owner's (lowest block's) value
#pragma once

#include "multiblock/formulas.hpp"
#include "multiblock/mesh.hpp"
#include "solver.hpp"

namespace nsb {

inline constexpr double kMbSolidConductivityRatio = 10;

// Free-stream value of unknown v (kRho..kRw).
double mb_free_stream(int v);

// res_v of every copy of a shared fluid node <- the sum over its copies (v = kRes0..kRes5): the partial
// changes each block's cells scattered to its copy, so a node on an interface gets every cell around it.
// (Fluid and solid blocks share no block face: their interface is the wall, a boundary condition.)
template <class T>
void mb_interface_sum(const MbMesh& m, const MbArrays<T>& a);

// Boundary conditions, then shared-node copies from their owner, then ghosts (unknowns and T).
template <class T>
void mb_boundary_conditions(const MbMesh& m, const MbArrays<T>& a);

// What a rank needs from the others for its nodes (host_side.hpp's neighbour-only messages): the nodes
// whose values before the routine the routine reads, directly or through the values it writes first, to
// produce its values at each set of `nodes` (one set a rank), sorted. They follow the two routines above step by step (boundary.cpp,
// beside them): the interface sum reads every copy of a fluid node's group; the boundary conditions read
// a wall node, the node one in and the solid's node one in (the interface temperature), then copies take
// their owner's value and ghosts their source's or their node's and inner node's. Every field counts the
// same nodes (a superset for some fields: never fewer).
using MbNodeSets = std::vector<std::vector<std::uint32_t>>;
MbNodeSets mb_interface_sum_reads(const MbMesh& m, const MbNodeSets& nodes);
MbNodeSets mb_boundary_conditions_reads(const MbMesh& m, const MbNodeSets& nodes);

// The initial state: the free stream in the fluid, the solid at t_solid_initial, then the boundary
// conditions (so the wall, interface and ghosts are consistent from the first iteration). Fields by
// name: rho .. rho_omega, temperature.
template <class T>
HostState<T> mb_initial_state(const MbMesh& m);

}  // namespace nsb
