// Flops of the streamvort and ogrid ops, counted by running the shared formulas (formulas.hpp) once
// on a number type that counts the arithmetic done on it, so the counts follow the formulas.
#include "streamvort/stage_call.hpp"

namespace nsb {
namespace {

// +, -, * and / count one each; negation and comparisons are free (a sign flip, a branch).
struct Counted {
  static inline long ops = 0;
  double v = 0;
  Counted() = default;
  Counted(double x) : v(x) {}
};
Counted operator+(Counted a, Counted b) { ++Counted::ops; return {a.v + b.v}; }
Counted operator-(Counted a, Counted b) { ++Counted::ops; return {a.v - b.v}; }
Counted operator*(Counted a, Counted b) { ++Counted::ops; return {a.v * b.v}; }
Counted operator/(Counted a, Counted b) { ++Counted::ops; return {a.v / b.v}; }
Counted operator-(Counted a) { return {-a.v}; }
bool operator<(Counted a, Counted b) { return a.v < b.v; }
bool operator>(Counted a, Counted b) { return a.v > b.v; }
bool operator<=(Counted a, Counted b) { return a.v <= b.v; }

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
