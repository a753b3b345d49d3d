// The ADI tables of the three sub-steps (formulas.hpp), built once per solver (or fixture) in the
// backend's memory: for each sub-step k, axis and velocity component, the line-independent rows, c' and
// Sherman-Morrison column of (1 - beta_k L_axis), beta_k = alpha_k dt nu.
#pragma once

#include <vector>

#include "fields.hpp"
#include "fracstep/formulas.hpp"

namespace nsb {

// The rows [first, first + ny] of a packed y metric (y_metric_values) of a y axis of `whole` cells: the
// metric of a y-slab rank of ny rows from row `first` + 1 (its ghost rows included: at a cut face the
// neighbour's cell, at a wall the mirrored ghost cell), bit for bit the whole axis's values.
inline std::vector<double> y_metric_rows(const std::vector<double>& whole_metric, int whole, int first, int ny) {
  const auto cell = whole_metric.begin() + first, gap = whole_metric.begin() + (whole + 2) + first;
  std::vector<double> m(cell, cell + (ny + 2));
  m.insert(m.end(), gap, gap + (ny + 1));
  return m;
}

// The y metric (formulas.hpp Spacing) of a grid, packed (y_metric_values, or a rank's y_metric_rows), in
// the backend's memory and on the host (the host checks of a run read it there).
template <class T>
class YMetric {
 public:
  YMetric(const std::vector<double>& packed, bool on_device)
      : values_(packed), host_(values_.begin(), values_.end()),
        buffer_(host_.size(), on_device, "fracstep y metric") {
    buffer_.upload(host_);
  }
  const std::vector<double>& values() const { return values_; }
  Spacing<T> spacing(const Grid& g) const { return spacing_of<T>(g, buffer_.get()); }
  Spacing<T> host_spacing(const Grid& g) const { return spacing_of<T>(g, host_.data()); }

 private:
  std::vector<double> values_;
  std::vector<T> host_;
  Buffer<T> buffer_;
};

template <class T>
class AdiTables {
 public:
  // y_metric: y_metric_values of the grid's y faces.
  AdiTables(const Grid& g, double dt, double nu, const std::vector<double>& y_metric, bool on_device) {
    const double h[3] = {g.dx(), g.dy(), g.dz()};
    const int n[3] = {g.nx, g.ny, g.nz};
    const double* inv_cell = y_metric.data();
    const double* inv_gap = inv_cell + g.ny + 2;
    std::vector<double> all;
    struct Slot {
      AdiTableValues v;
      std::size_t offset;
    };
    std::vector<Slot> slots;
    for (int k = 0; k < 3; ++k)
      for (int axis = 0; axis < 3; ++axis)
        for (int comp = 0; comp < 3; ++comp) {
          const double beta = Rk3::alpha(k) * dt * nu;
          const AdiEnds ends = axis != 1 ? AdiEnds::periodic : comp == 1 ? AdiEnds::wall_faces : AdiEnds::wall_centred;
          const int len = axis == 1 && comp == 1 ? n[1] - 1 : n[axis];
          std::vector<double> lower(std::size_t(len), beta / (h[axis] * h[axis])), upper = lower;
          for (int row = 0; axis == 1 && row < len; ++row) {  // laplacian()'s y rows; v's rows are faces 1..ny-1
            const int j = row + 1;
            const double step = comp == 1 ? inv_gap[j] : inv_cell[j];
            lower[std::size_t(row)] = beta * step * (comp == 1 ? inv_cell[j] : inv_gap[j - 1]);
            upper[std::size_t(row)] = beta * step * (comp == 1 ? inv_cell[j + 1] : inv_gap[j]);
          }
          slots.push_back({adi_table_values(lower, upper, ends), all.size()});
          all.insert(all.end(), slots.back().v.packed.begin(), slots.back().v.packed.end());
        }
    buffer_ = Buffer<T>(all.size(), on_device, "fracstep ADI tables");
    buffer_.upload(std::vector<T>(all.begin(), all.end()));
    for (std::size_t s = 0; s < slots.size(); ++s) {
      const AdiTableValues& v = slots[s].v;
      AdiTable<T>& t = table_[s / 9][(s / 3) % 3][s % 3];
      t.n = v.n, t.cyclic = v.cyclic, t.a0 = T(v.a0), t.gamma = T(v.gamma);
      t.a = buffer_.get() + slots[s].offset;
      t.b = t.a + v.n, t.c = t.b + v.n, t.cp = t.c + v.n, t.z = t.cp + v.n;
    }
  }
  // Sub-step k's tables, [axis][component].
  const AdiTable<T> (&of_substep(int k) const)[3][3] { return table_[k]; }

 private:
  Buffer<T> buffer_;
  AdiTable<T> table_[3][3][3];  // [sub-step][axis][component]
};

}  // namespace nsb
