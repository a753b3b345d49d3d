// Flops of the streamvort and ogrid ops, counted by running the shared formulas (formulas.hpp) once
// on a number type that counts the arithmetic done on it, so the counts follow the formulas.
#include "streamvort/stage_call.hpp"
#include "op_count.hpp"

namespace nsb {
namespace {


struct CountedField {
  Counted operator()(int di, int dj) const { return Counted(1.0 + di + 3 * dj); }
};

template <class F>
double count(F&& f) {
  Counted::ops = 0;
  f();
  return double(Counted::ops);
}

}  // namespace

double grid_sweep_flops() {
  return count([] {
    Counted xn, yn;
    grid_point(CountedField{}, CountedField{}, Counted(0.1), Counted(0.2), Counted(1.0), xn, yn);
  });
}
double stream_flops() {
  return count([] {
    Counted out;
    stream_point(CountedField{}, Counted(1), Counted(1), Counted(0.1), Counted(1), Counted(0.1), Counted(0.1),
                 Counted(1), out);
  });
}
double vorticity_flops() {
  return count([] {
    vorticity_point(CountedField{}, CountedField{}, Counted(1), Counted(0.1), Counted(1), Counted(0.1), Counted(0.1),
                    Counted(1), Counted(0.01), Counted(0.001));
  });
}

}  // namespace nsb
