// Buildings of the urban cases: rectangular blocks standing on the ground, generated from a seed or
// read from a text file, and the obstacle flag field they make.
//
// Axes: x is the wind direction (inflow on the west face x = 0), y the height (ground at y = 0), z the
// span. The height is y, not z, so that the z-slab decomposition cuts a long direction (the thesis
// "flips" its domain for the same reason, Sec. 3.3.4).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "grid.hpp"

namespace nsb {

// One building: x in [x0, x1), z in [z0, z1), y in [0, height), in the domain's length units.
struct Building {
  double x0, x1, z0, z1, height;
};

// A seeded city: square blocks of `block` cells separated by streets of `street` cells, an empty fetch
// of `upstream` cells behind the inflow and `downstream` cells before the outflow, block heights drawn
// uniformly in [min_height, max_height] cells (a block of height 0 is a square, left empty).
struct CityPlan {
  unsigned seed = 1;
  int block = 8, street = 4;
  int upstream = 0, downstream = 0;
  int min_height = 0, max_height = 0;
};
std::vector<Building> generate_city(const Grid& g, const CityPlan& plan);

// A city file: one building a line, "x0 x1 z0 z1 height" (domain units); '#' starts a comment.
// Throws std::invalid_argument naming the file and line of a malformed entry.
std::vector<Building> read_city(const std::string& path);

// The flag field (1 = solid) at cell centres, padded: a cell is solid when its centre lies in a
// building. Ghost cells copy the nearest interior cell, so a building touching a face continues
// beyond it (and the obstacle logic sees no wall there).
std::vector<double> solid_flags(const Grid& g, const std::vector<Building>& buildings);
// The same field's padded z planes [first, last] of grid g only (a rank's slab, its ghost planes and a margin:
// projection/initial_state.cpp), each value as the whole field's: planes 0 and nz + 1 copy planes 1 and nz,
// which the window must hold where it holds them.
std::vector<double> solid_flags(const Grid& g, const std::vector<Building>& buildings, int first, int last);

}  // namespace nsb
