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
    host_.assign(all.begin(), all.end());
    buffer_ = Buffer<T>(all.size(), on_device, "fracstep ADI tables");
    buffer_.upload(host_);
    for (std::size_t s = 0; s < slots.size(); ++s) {
      const AdiTableValues& v = slots[s].v;
      for (int on_host = 0; on_host < 2; ++on_host) {
        AdiTable<T>& t = (on_host ? host_table_ : table_)[s / 9][(s / 3) % 3][s % 3];
        t.n = v.n, t.cyclic = v.cyclic, t.a0 = T(v.a0), t.gamma = T(v.gamma);
        t.a = (on_host ? host_.data() : buffer_.get()) + slots[s].offset;
        t.b = t.a + v.n, t.c = t.b + v.n, t.cp = t.c + v.n, t.z = t.cp + v.n;
      }
    }
  }
  // Sub-step k's tables, [axis][component]; the same in host memory.
  const AdiTable<T> (&of_substep(int k) const)[3][3] { return table_[k]; }
  const AdiTable<T> (&host_of_substep(int k) const)[3][3] { return host_table_[k]; }

 private:
  std::vector<T> host_;
  Buffer<T> buffer_;
  AdiTable<T> table_[3][3][3];       // [sub-step][axis][component]
  AdiTable<T> host_table_[3][3][3];  // the same rows in host_
};

// V2's ADI-Y with shared factors (split_factors=shared): every y line of a component has its table's
// matrix, so each rank block's v, w, c' (split_factor, pdd_formulas.hpp) are one line of the channel's
// rows a component and sub-step, computed here once on the host in T (split_local's operations: the
// host per-line form's values bit for bit; against the GPU's per-line kernel, whose multiply-adds nvcc may
// fuse, to round-off) and kept in the backend's memory: 3 sub-steps x 3 components x
// (v, w, c') x the channel's rows (ny; v: ny - 1), in place of the per-line form's 9 fields. All p
// blocks (cut at the channel's `cells` cell rows, as AdiYLines cuts them): a real rank reads its own.
template <class T>
class AdiYSplitFactors {
 public:
  AdiYSplitFactors(const AdiTables<T>& tables, int p, int cells, bool on_device) {
    std::size_t offset[3][3], words = 0;
    for (int k = 0; k < 3; ++k)
      for (int comp = 0; comp < 3; ++comp) offset[k][comp] = words, words += 3 * std::size_t(tables.host_of_substep(k)[1][comp].n);
    std::vector<T> host(words);
    for (int k = 0; k < 3; ++k)
      for (int comp = 0; comp < 3; ++comp) {
        const AdiTable<T>& t = tables.host_of_substep(k)[1][comp];
        T* v = host.data() + offset[k][comp];
        const SplitLine<T, AdiRows<T>> line{AdiRows<T>{t.a, t.b, t.c}, t.n, nullptr, 0, v, v + t.n, v + 2 * t.n, 1, 0, cells};
        for (int r = 0; r < p; ++r) split_factor(line, p, r);
      }
    buffer_ = Buffer<T>(words, on_device, "fracstep: ADI-Y split factors");
    buffer_.upload(host);
    for (int k = 0; k < 3; ++k)
      for (int comp = 0; comp < 3; ++comp) {
        const int n = tables.host_of_substep(k)[1][comp].n;
        for (int m = 0; m < 3; ++m) factor_[k][comp][m] = buffer_.get() + offset[k][comp] + std::size_t(m) * n;
      }
  }
  // Sub-step k's factors, [component][v, w, cp] (AdiYLines::factor).
  T* const (&of_substep(int k) const)[3][3] { return factor_[k]; }
  static std::size_t words(int ny) { return 3 * 3 * 3 * std::size_t(ny); }  // at most (v's lines: ny - 1)

 private:
  Buffer<T> buffer_;
  T* factor_[3][3][3] = {};  // [sub-step][component][v, w, cp]
};

}  // namespace nsb
