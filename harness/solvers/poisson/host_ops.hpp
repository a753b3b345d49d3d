// Whole-grid operations of the Poisson family on host arrays (serial or OpenMP): the CPU reference's
// building blocks, and what tests use to set up and check any method's solution.
#pragma once

#include <cstddef>
#include <vector>

#include "grid.hpp"
#include "poisson/poisson.hpp"

namespace nsb {

// Ghost layer of p from the faces (x, then y, then z).
template <class T>
void apply_faces_host(T* p, const Grid& g, const PoissonFaces& f, int threads = 1);
// r = rhs_scale * rhs - L p at interior points (r's ghosts left as they are); p's ghosts must be set.
template <class T>
void residual_host(T* r, const T* p, const T* rhs, T rhs_scale, const Grid& g, int threads = 1);
// RMS over interior points, accumulated in double.
template <class T>
double interior_rms(const T* a, const Grid& g, int threads = 1);
// Mean over interior points.
template <class T>
double interior_mean(const T* a, const Grid& g, int threads = 1);
// a -= c at interior points (fixing the level of a singular problem's solution, or making a singular
// problem's right-hand side sum to zero).
template <class T>
void subtract_interior(T* a, double c, const Grid& g, int threads = 1);

// A manufactured problem with a known continuous solution for the given faces: per axis
// cos(pi x / L) on neumann-neumann, sin(pi x / L) on dirichlet-dirichlet, sin(2 pi x / L) on periodic
// (a face pair must be of one type); exact holds the solution at cell centres (zero mean where the
// problem is singular), rhs its continuous Laplacian. Throws std::invalid_argument for mixed pairs.
template <class T>
struct ManufacturedPoisson {
  std::vector<T> exact, rhs;
};
template <class T>
ManufacturedPoisson<T> manufactured_poisson(const Grid& g, const PoissonFaces& f);

}  // namespace nsb
