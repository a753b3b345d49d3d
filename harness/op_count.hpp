// A number that counts the arithmetic done on it: a solver's models.cpp runs its formulas on it once,
// so the flops of a work model follow the formulas instead of being counted by hand. +, -, *, /, a
// square root and an exponential count one each; negation and comparisons are free (a sign flip and a branch, not
// floating-point work). Set Counted::ops = 0, run the formula, read Counted::ops.
#pragma once

#include <cmath>

namespace nsb {
// In a namespace of its own, so that its sqrt is found only by argument-dependent look-up and never
// hides std::sqrt for plain doubles in the code around it.
namespace op_count {

struct Counted {
  static inline long ops = 0;
  double v = 0;
  Counted() = default;
  Counted(double x) : v(x) {}  // literals such as T(0.25) convert freely
};
inline Counted operator+(Counted a, Counted b) { ++Counted::ops; return {a.v + b.v}; }
inline Counted operator-(Counted a, Counted b) { ++Counted::ops; return {a.v - b.v}; }
inline Counted operator*(Counted a, Counted b) { ++Counted::ops; return {a.v * b.v}; }
inline Counted operator/(Counted a, Counted b) { ++Counted::ops; return {a.v / b.v}; }
inline Counted operator-(Counted a) { return {-a.v}; }
inline Counted& operator+=(Counted& a, Counted b) { return a = a + b; }
inline Counted& operator-=(Counted& a, Counted b) { return a = a - b; }
inline bool operator<(Counted a, Counted b) { return a.v < b.v; }
inline bool operator>(Counted a, Counted b) { return a.v > b.v; }
inline bool operator<=(Counted a, Counted b) { return a.v <= b.v; }
inline bool operator==(Counted a, Counted b) { return a.v == b.v; }
inline bool operator!=(Counted a, Counted b) { return a.v != b.v; }
// Both spellings the formulas use, found by argument-dependent look-up.
inline Counted sqrt(Counted a) { ++Counted::ops; return {std::sqrt(a.v)}; }
inline Counted square_root(Counted a) { return sqrt(a); }
inline Counted exp(Counted a) { ++Counted::ops; return {std::exp(a.v)}; }

}  // namespace op_count
using op_count::Counted;
}  // namespace nsb
