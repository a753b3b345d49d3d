// The Poisson family's shared numerics (poisson/formulas.hpp, host_ops.hpp): the ghost rule of each
// face type and the 7-point operator, against manufactured solutions. Each method adds its own tests.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "poisson/host_ops.hpp"

namespace nsb {
namespace {

PoissonFaces all(PoissonFace f) {
  PoissonFaces out;
  for (auto& axis : out.face) axis[0] = axis[1] = f;
  return out;
}

// RMS of L(exact) - rhs: the truncation error of the operator with the faces' ghost rule.
double truncation_rms(int n, const PoissonFaces& f) {
  const Grid g{n, n, n, 1, 2, 1.5};
  ManufacturedPoisson<double> m = manufactured_poisson<double>(g, f);
  apply_faces_host(m.exact.data(), g, f);
  std::vector<double> r(g.padded_points(), 0.0);
  residual_host(r.data(), m.exact.data(), m.rhs.data(), 1.0, g);
  return interior_rms(r.data(), g);
}

class PoissonFacesTest : public ::testing::TestWithParam<PoissonFace> {};

// Second order: doubling the resolution divides the truncation error by 4 (within 10%), for every face
// type (a wrong ghost rule leaves an O(1/h) error at the faces and fails this).
TEST_P(PoissonFacesTest, OperatorWithGhostRuleIsSecondOrder) {
  const PoissonFaces f = all(GetParam());
  const double e16 = truncation_rms(16, f), e32 = truncation_rms(32, f);
  EXPECT_NEAR(std::log2(e16 / e32), 2.0, 0.15) << poisson_face_name(GetParam()) << ": " << e16 << " -> " << e32;
}

INSTANTIATE_TEST_SUITE_P(EveryFace, PoissonFacesTest,
                         ::testing::Values(PoissonFace::neumann, PoissonFace::dirichlet, PoissonFace::periodic),
                         [](const ::testing::TestParamInfo<PoissonFace>& p) { return std::string(poisson_face_name(p.param)); });

TEST(PoissonFaces, SingularOnlyWithoutDirichlet) {
  EXPECT_TRUE(all(PoissonFace::neumann).singular());
  EXPECT_TRUE(all(PoissonFace::periodic).singular());
  PoissonFaces f = all(PoissonFace::neumann);
  f.face[2][1] = PoissonFace::dirichlet;
  EXPECT_FALSE(f.singular());
}

TEST(PoissonManufactured, SingularSolutionsHaveZeroMeanAndMixedPairsAreRefused) {
  const Grid g{8, 6, 10, 1, 1, 1};
  const ManufacturedPoisson<double> m = manufactured_poisson<double>(g, all(PoissonFace::neumann));
  EXPECT_NEAR(interior_mean(m.exact.data(), g), 0.0, 1e-14);
  EXPECT_NEAR(interior_mean(m.rhs.data(), g), 0.0, 1e-12);
  PoissonFaces mixed = all(PoissonFace::neumann);
  mixed.face[1][0] = PoissonFace::periodic;
  EXPECT_THROW(manufactured_poisson<double>(g, mixed), std::invalid_argument);
}

}  // namespace
}  // namespace nsb
