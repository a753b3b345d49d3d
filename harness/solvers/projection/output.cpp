// What a projection run writes for people to look at (nsbench run --output DIR): the flow at cell
// centres for ParaView, and for the cavity its two centre lines as CSV at any Reynolds number (the
// lines Ghia et al. tabulate at Re 100 and 1000; the validation compares those).
#include <cmath>
#include <fstream>
#include <stdexcept>

#include "projection/output.hpp"
#include "vtk.hpp"

namespace nsb {
namespace {

// A staggered component at cell centres: the mean of the cell's two faces along its axis.
template <class T>
std::vector<float> centred(const Grid& g, const std::vector<T>& f, int axis) {
  const std::ptrdiff_t back = axis == 0 ? 1 : axis == 1 ? g.sy() : g.sz();
  std::vector<float> out;
  out.reserve(g.interior_points());
  for (int k = 1; k <= g.nz; ++k)
    for (int j = 1; j <= g.ny; ++j)
      for (int i = 1; i <= g.nx; ++i) {
        const std::size_t n = g.idx(i, j, k);
        out.push_back(float(0.5 * (double(f[n]) + double(f[n - back]))));
      }
  return out;
}

// Linear interpolation between the two grid points around `at` (positions x0 + m h, m = 0..n-1).
double between(const std::vector<double>& values, double x0, double h, double at) {
  const double m = (at - x0) / h;
  const int m0 = std::max(0, std::min(int(values.size()) - 2, int(std::floor(m))));
  return values[m0] + (m - m0) * (values[m0 + 1] - values[m0]);
}

// The cavity's centre lines: u along z on x = 1/2, w along x on z = 1/2 (both in units of the lid
// speed), from the staggered points, interpolated across the line where the grid puts none on it.
template <class T>
void write_centre_lines(const Case& c, const HostState<T>& s, const std::string& path) {
  const Grid& g = c.grid;
  const std::vector<T>& u = s.field("u");
  const std::vector<T>& w = s.field("w");
  const int jm = (g.ny + 1) / 2;  // the flow is uniform in y
  std::ofstream out(path);
  if (!out) throw std::runtime_error("cannot write " + path);
  out << "# lid-driven cavity, Re " << c.u_ref / c.nu << ", t " << s.time << ", step " << s.step << "\n"
      << "line,position,velocity_over_lid\n";
  for (int k = 0; k <= g.nz + 1; ++k) {  // u-points at x = i dx: interpolate to x = 1/2
    std::vector<double> row;
    for (int i = 0; i <= g.nx; ++i) row.push_back(double(u[g.idx(i, jm, k)]));
    out << "u_on_x_half," << (k - 0.5) * g.dz() << "," << between(row, 0.0, g.dx(), 0.5 * g.lx) / c.u_ref << "\n";
  }
  for (int i = 0; i <= g.nx + 1; ++i) {  // w-points at z = k dz: interpolate to z = 1/2
    std::vector<double> column;
    for (int k = 0; k <= g.nz; ++k) column.push_back(double(w[g.idx(i, jm, k)]));
    out << "w_on_z_half," << (i - 0.5) * g.dx() << "," << between(column, 0.0, g.dz(), 0.5 * g.lz) / c.u_ref << "\n";
  }
  if (!out) throw std::runtime_error("writing " + path + " failed");
}

}  // namespace

template <class T>
std::vector<std::string> write_projection_output(const Case& c, const HostState<T>& s, const std::string& dir,
                                                 const std::string& tag) {
  const Grid& g = s.grid;
  std::vector<float> velocity(3 * g.interior_points()), speed(g.interior_points());
  const std::vector<float> uc = centred(g, s.field("u"), 0), vc = centred(g, s.field("v"), 1),
                           wc = centred(g, s.field("w"), 2);
  for (std::size_t n = 0; n < speed.size(); ++n) {
    velocity[3 * n] = uc[n], velocity[3 * n + 1] = vc[n], velocity[3 * n + 2] = wc[n];
    speed[n] = std::sqrt(uc[n] * uc[n] + vc[n] * vc[n] + wc[n] * wc[n]);
  }
  std::vector<std::string> files = {dir + "/" + tag + ".vti"};
  write_vti(files[0], g, {{"velocity", 3, velocity}, {"speed", 1, speed}, {"pressure", 1, interior_cells(g, s.field("p"))}});
  if (c.validation == "ghia" || c.validation == "cavity3d") {
    files.push_back(dir + "/" + tag + "_centre_lines.csv");
    write_centre_lines(c, s, files.back());
  }
  return files;
}

template std::vector<std::string> write_projection_output(const Case&, const HostState<float>&, const std::string&,
                                                          const std::string&);
template std::vector<std::string> write_projection_output(const Case&, const HostState<double>&, const std::string&,
                                                          const std::string&);

}  // namespace nsb
