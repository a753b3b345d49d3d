// Flow fields for ParaView: VTK XML image data (.vti) of cell values on a uniform grid, written
// without a VTK dependency (the GPU machines have no VTK library; the format is a page of XML around
// base64-encoded little-endian arrays, "binary" inline data with a 32-bit byte-count header).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "grid.hpp"

namespace nsb {

struct CellArray {
  std::string name;
  int components = 1;          // 1: a scalar, 3: a vector (x, y, z interleaved)
  std::vector<float> values;   // nx*ny*nz*components, x fastest
};

// Writes cell data on the interior of grid g (nx x ny x nz cells of size dx, dy, dz from the origin);
// throws naming the path when it cannot.
void write_vti(const std::string& path, const Grid& g, const std::vector<CellArray>& cells);

// The interior of a padded field as cell values (x fastest), in float.
template <class T>
std::vector<float> interior_cells(const Grid& g, const std::vector<T>& padded) {
  std::vector<float> out;
  out.reserve(g.interior_points());
  for (int k = 1; k <= g.nz; ++k)
    for (int j = 1; j <= g.ny; ++j)
      for (int i = 1; i <= g.nx; ++i) out.push_back(float(padded[g.idx(i, j, k)]));
  return out;
}

// Named padded fields of grid g as stored (interior cells), in DIR/<tag>.vti: what a solver without an
// output of its own writes (ProblemImpl's default). Returns the path.
template <class T>
std::string write_fields_vti(const std::string& dir, const std::string& tag, const Grid& g,
                             const std::vector<std::pair<std::string, std::vector<T>>>& fields) {
  std::vector<CellArray> cells;
  for (const auto& [name, values] : fields) cells.push_back({name, 1, interior_cells(g, values)});
  const std::string path = dir + "/" + tag + ".vti";
  write_vti(path, g, cells);
  return path;
}

}  // namespace nsb
