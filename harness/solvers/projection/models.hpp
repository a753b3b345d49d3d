// Work models: the fewest bytes each stage must move through memory and the floating-point
// operations it does, per call. Flop counts are not typed in: they are counted by running the shared
// per-point formulas once on an operation-counting number type (models.cpp), so they follow the
// formulas if those change. Bytes count each input read once and each output written once (the
// streaming minimum a perfect cache would reach), in the solver's precision.
#pragma once

#include <cstddef>

#include "projection/stage_call.hpp"
#include "stage_kind.hpp"  // WorkModel

namespace nsb {

// Flops per updated point of one stage (0 for pure copies such as boundary conditions).
// upwind: the momentum advection carries the upwind blend terms (gamma != 0).
double flops_per_point(ProjectionStage s, TimeScheme scheme, bool upwind = false);

// Model of one call of stage s on grid g over z-levels zr with elements of elem_bytes.
// For reduce, `two_inputs` says whether a second field is subtracted.
WorkModel work_model(ProjectionStage s, const Grid& g, ZRange zr, int elem_bytes, TimeScheme scheme, bool upwind = false,
                     bool two_inputs = true);

// The urban stages. Obstacle logic: the fewest bytes are those of the points it may change (the
// obstacle cell list): read u* v* w* and the flag, write u* v* w*, 7 words a listed point; its flops are
// the fused formula's (obstacle_final, three components). The masked Jacobi sweep reads the flags too
// (4 words a point). The eddy viscosity reads u v w and writes nut (4 words a point).
WorkModel obstacles_work_model(double listed_points, int elem_bytes);
WorkModel masked_pressure_work_model(const Grid& g, ZRange zr, int elem_bytes);
WorkModel nu_turbulent_work_model(const Grid& g, ZRange zr, int elem_bytes);
double masked_jacobi_flops_per_point();
// Momentum with the eddy viscosity (momentum_rhs_eddy): the laminar stage's words plus nut read once.
WorkModel momentum_eddy_work_model(const Grid& g, ZRange zr, int elem_bytes, TimeScheme scheme, bool upwind);
double momentum_eddy_flops_per_point(TimeScheme scheme, bool upwind);
double nu_turbulent_flops_per_point();

}  // namespace nsb
