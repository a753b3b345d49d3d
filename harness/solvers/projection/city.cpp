#include "projection/city.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>

namespace nsb {

std::vector<Building> generate_city(const Grid& g, const CityPlan& p) {
  if (p.block < 1 || p.street < 0) throw std::invalid_argument("city: block must be >= 1 cell and street >= 0");
  std::vector<Building> out;
  std::mt19937 rng(p.seed);
  std::uniform_int_distribution<int> height(p.min_height, std::max(p.min_height, p.max_height));
  const double dx = g.dx(), dy = g.dy(), dz = g.dz();
  const int pitch = p.block + p.street;
  for (int x = p.upstream; x + p.block <= g.nx - p.downstream; x += pitch)
    for (int z = p.street / 2; z + p.block <= g.nz; z += pitch) {
      const int h = std::min(height(rng), g.ny - 1);  // one fluid cell above every roof at least
      if (h <= 0) continue;
      out.push_back({x * dx, (x + p.block) * dx, z * dz, (z + p.block) * dz, h * dy});
    }
  return out;
}

std::vector<Building> read_city(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::invalid_argument("city file '" + path + "' cannot be read");
  std::vector<Building> out;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    line = line.substr(0, line.find('#'));
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    std::istringstream s(line);
    Building b{};
    std::string extra;
    if (!(s >> b.x0 >> b.x1 >> b.z0 >> b.z1 >> b.height) || (s >> extra) || !(b.x1 > b.x0) || !(b.z1 > b.z0) ||
        !(b.height > 0))
      throw std::invalid_argument("city file '" + path + "' line " + std::to_string(n) +
                                  ": expected 'x0 x1 z0 z1 height' with x1 > x0, z1 > z0, height > 0");
    out.push_back(b);
  }
  return out;
}

std::vector<double> solid_flags(const Grid& g, const std::vector<Building>& buildings) {
  return solid_flags(g, buildings, 0, g.NZ() - 1);
}

std::vector<double> solid_flags(const Grid& g, const std::vector<Building>& buildings, int first, int last) {
  if (first < 0 || last > g.NZ() - 1 || first > last || (first == 0 && last < 1) || (last == g.NZ() - 1 && first > g.nz))
    throw std::logic_error("solid_flags: planes " + std::to_string(first) + ".." + std::to_string(last) +
                           " are not a window of the grid's 0.." + std::to_string(g.NZ() - 1) +
                           " that holds what its ghost planes copy");
  const std::size_t plane = std::size_t(g.sz());
  std::vector<double> f(plane * std::size_t(last - first + 1), 0.0);
  auto at = [&](int i, int j, int k) { return g.idx(i, j, k) - plane * std::size_t(first); };  // k: the grid's plane
  const double dx = g.dx(), dy = g.dy(), dz = g.dz();
  // The cells whose centre may lie in [lo, hi) along an axis of spacing h and n cells (a margin of one
  // cell either side; the test below decides).
  auto range = [](double lo, double hi, double h, int n, int& from, int& to) {
    from = std::max(1, int(std::floor(lo / h)));
    to = std::min(n, int(std::ceil(hi / h)) + 1);
  };
  for (const Building& b : buildings) {
    int i0, i1, j0, j1, k0, k1;
    range(b.x0, b.x1, dx, g.nx, i0, i1);
    range(0.0, b.height, dy, g.ny, j0, j1);
    range(b.z0, b.z1, dz, g.nz, k0, k1);
    for (int k = std::max(k0, first); k <= std::min(k1, last); ++k)
      for (int j = j0; j <= j1; ++j)
        for (int i = i0; i <= i1; ++i) {
          const double x = (i - 0.5) * dx, y = (j - 0.5) * dy, z = (k - 0.5) * dz;
          if (x >= b.x0 && x < b.x1 && z >= b.z0 && z < b.z1 && y < b.height) f[at(i, j, k)] = 1.0;
        }
  }
  auto clamp = [](int a, int n) { return std::min(std::max(a, 1), n); };
  for (int k = first; k <= last; ++k)
    for (int j = 0; j < g.NY(); ++j)
      for (int i = 0; i < g.NX(); ++i)
        if (i == 0 || j == 0 || k == 0 || i == g.NX() - 1 || j == g.NY() - 1 || k == g.NZ() - 1)
          f[at(i, j, k)] = f[at(clamp(i, g.nx), clamp(j, g.ny), clamp(k, g.nz))];
  return f;
}

}  // namespace nsb
