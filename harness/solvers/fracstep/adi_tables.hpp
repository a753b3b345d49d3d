// The ADI tables of the three sub-steps (formulas.hpp), built once per solver (or fixture) in the
// backend's memory: for each sub-step k, axis and velocity component, the line-independent rows, c' and
// Sherman-Morrison column of (1 - beta_k L_axis), beta_k = alpha_k dt nu.
#pragma once

#include <vector>

#include "fields.hpp"
#include "fracstep/formulas.hpp"

namespace nsb {

template <class T>
class AdiTables {
 public:
  AdiTables(const Grid& g, double dt, double nu, bool on_device) {
    const double h[3] = {g.dx(), g.dy(), g.dz()};
    const int n[3] = {g.nx, g.ny, g.nz};
    std::vector<double> all;
    struct Slot {
      AdiTableValues v;
      std::size_t offset;
    };
    std::vector<Slot> slots;
    for (int k = 0; k < 3; ++k)
      for (int axis = 0; axis < 3; ++axis)
        for (int comp = 0; comp < 3; ++comp) {
          const double r = Rk3::alpha(k) * dt * nu / (h[axis] * h[axis]);
          const AdiEnds ends = axis != 1 ? AdiEnds::periodic : comp == 1 ? AdiEnds::wall_faces : AdiEnds::wall_centred;
          const int len = axis == 1 && comp == 1 ? n[1] - 1 : n[axis];
          slots.push_back({adi_table_values(len, r, ends), all.size()});
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
