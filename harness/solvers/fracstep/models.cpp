// The fractional-step solver's ADI tables and work models (formulas.hpp, stage_call.hpp).
#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "fracstep/stage_call.hpp"
#include "op_count.hpp"

namespace nsb {

AdiTableValues adi_table_values(const std::vector<double>& lower, const std::vector<double>& upper, AdiEnds ends) {
  const bool cyclic = ends == AdiEnds::periodic;
  const int n = int(lower.size());
  if (n < (cyclic ? 3 : 1) || upper.size() != lower.size())
    throw std::invalid_argument("fracstep: an ADI line needs at least 3 cells when periodic");
  const std::size_t m = std::size_t(n), last = m - 1;
  std::vector<double> a(m), b(m), c(m), cp(m, 0.0), z(m, 0.0), u(m, 0.0);
  for (std::size_t j = 0; j < m; ++j) a[j] = -lower[j], c[j] = -upper[j], b[j] = 1 + lower[j] + upper[j];
  AdiTableValues t;
  t.n = n, t.cyclic = cyclic;
  if (cyclic) {  // Sherman-Morrison's split (tridiag/formulas.hpp): A' = the rows without the corners
    t.a0 = a[0], t.gamma = cyclic_gamma(b[0]);
    u[0] = t.gamma, u[last] = c[last];
    b[0] = cyclic_b_first(b[0], t.gamma);
    b[last] = cyclic_b_last(b[last], t.a0, c[last], t.gamma);
  } else if (ends == AdiEnds::wall_centred) {
    b[0] += lower[0], b[last] += upper[last];  // ghost = - inner
  }
  a[0] = 0, c[last] = 0;
  // c' of these rows, and (cyclic) z: A' z = u, by the family's Thomas formulas.
  ThomasRow<double> row{0, 0};
  for (std::size_t j = 0; j < m; ++j) {
    row = thomas_forward(a[j], b[j], c[j], u[j], row);
    cp[j] = row.cp, z[j] = row.dp;
  }
  for (std::size_t j = last; j-- > 0;) z[j] = thomas_back(ThomasRow<double>{cp[j], z[j]}, z[j + 1]);
  if (!cyclic) std::fill(z.begin(), z.end(), 0.0);  // unused
  for (const std::vector<double>* part : {&a, &b, &c, &cp, &z}) t.packed.insert(t.packed.end(), part->begin(), part->end());
  return t;
}

std::vector<double> y_metric_values(const std::vector<double>& faces) {
  const int ny = int(faces.size()) - 1;
  if (ny < 1) throw std::invalid_argument("fracstep: a y axis needs at least one cell");
  const auto cell = [&](int j) { return faces[std::size_t(j)] - faces[std::size_t(j - 1)]; };  // j = 1..ny
  std::vector<double> m(2 * std::size_t(ny) + 3);
  for (int j = 1; j <= ny; ++j) {
    if (!(cell(j) > 0)) throw std::invalid_argument("fracstep: the y faces must increase");
    m[std::size_t(j)] = 1 / cell(j);
  }
  m[0] = m[1], m[std::size_t(ny) + 1] = m[std::size_t(ny)];  // the mirrored ghost cells
  double* gap = m.data() + ny + 2;
  for (int j = 0; j <= ny; ++j)  // the gap of the centres around face j; at a wall, the wall cell's height
    gap[j] = j == 0 ? m[1] : j == ny ? m[std::size_t(ny)] : 2 / (cell(j) + cell(j + 1));
  return m;
}

namespace {

template <class F>
long count(F&& f) {
  Counted::ops = 0;
  f();
  return Counted::ops;
}

// Flops a cell costs, summed over the components where the stage works on all three, at an interior
// cell of a small grid (away from the walls, whose mirror signs are free anyway).
double counted_flops(const std::string& stage) {
  Grid g;
  g.nx = g.ny = g.nz = 4;
  std::vector<Counted> f(g.padded_points(), Counted(1.0)), metric(2 * std::size_t(g.ny) + 3, Counted(1.0));
  const Counted* vel[3] = {f.data(), f.data(), f.data()};
  const Spacing<Counted> s = spacing_of<Counted>(g, metric.data());
  SubstepCoef<Counted> c;
  if (stage == "rhs")
    return double(count([&] {
      for (int comp = 0; comp < 3; ++comp) {
        const Counted n = convection(vel, g, s, comp, 2, 2, 2);
        rhs_point(n, Counted(1.0), pressure_gradient(f.data(), g, s, comp, 2, 2, 2), laplacian(f.data(), g, s, comp, 2, 2, 2),
                  Counted(0.0), c);
      }
    }));
  if (stage == "divergence") return double(count([&] { divergence_point(vel, vel, g, s, 2, 2, 2); }));
  if (stage == "correct")
    return double(count([&] {
      for (int comp = 0; comp < 3; ++comp)
        corrected_velocity(Counted(1.0), Counted(1.0), pressure_gradient(f.data(), g, s, comp, 2, 2, 2), c);
      Counted p = 1.0;
      p += Counted(1.0);
    }));
  if (stage == "adi_x" || stage == "adi_y" || stage == "adi_z") {
    // A line of 64: per unknown, Thomas (forward and back) and, for the periodic x and z, the correction.
    const int n = 64;
    std::vector<Counted> rows(std::size_t(5 * n), Counted(1.0)), x(std::size_t(n), Counted(1.0));
    AdiTable<Counted> t;
    t.n = n, t.cyclic = stage != "adi_y", t.a0 = 1.0, t.gamma = 1.0;
    t.a = rows.data(), t.b = t.a + n, t.c = t.b + n, t.cp = t.c + n, t.z = t.cp + n;
    return 3.0 * double(count([&] { adi_line(t, x.data(), 1); })) / n;
  }
  throw std::logic_error("fracstep: no stage kind '" + stage + "'");
}

// Words a cell moves: inputs once, outputs once.
double words_per_cell(const std::string& stage) {
  if (stage == "rhs") return 13;         // u v w, p, n_old x3 in; du x3, n x3 out
  if (stage == "divergence") return 7;   // u v w, du x3 in; div out
  if (stage == "correct") return 12;     // u v w, du x3, p, phi in; u v w, p out
  return 6;                              // ADI: du x3 in and out
}

}  // namespace

double fracstep_flops_per_point(const std::string& stage) {
  static const std::vector<std::string> stages(std::begin(kFracstepStages), std::end(kFracstepStages));
  static const std::vector<double> flops = [] {
    std::vector<double> f;
    for (const std::string& s : stages) f.push_back(counted_flops(s));
    return f;
  }();
  for (std::size_t i = 0; i < stages.size(); ++i)
    if (stages[i] == stage) return flops[i];
  throw std::logic_error("fracstep: no stage kind '" + stage + "'");
}

WorkModel fracstep_model(const std::string& stage, const Grid& g, int elem_bytes) {
  const double cells = double(g.interior_points());
  return {cells, words_per_cell(stage) * elem_bytes * cells, fracstep_flops_per_point(stage) * cells};
}

}  // namespace nsb
