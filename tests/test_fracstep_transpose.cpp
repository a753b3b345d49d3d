// V1's global transposes (fracstep/transpose_zx, fracstep/transpose_xz; harness/solvers/transpose/transpose.hpp):
// the CPU reference is a transpose (every point lands where the x-slab layout puts it; there and back is the
// identity), and every GPU variant equals it (skips without a GPU).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "device.hpp"
#include "transpose/transpose.hpp"
#include "registry.hpp"
#include "stage_kind.hpp"
#include "verify.hpp"
#include "gpu_test_support.hpp"

namespace nsb {
namespace {

// A value that names its point: (i, j, k, q) -> i + 1000 j + 1e6 k + 0.5 q (exact in double on these grids).
double label(int i, int j, int k, int q) { return i + 1000.0 * j + 1e6 * k + 0.5 * q; }

std::vector<double> labelled_zslabs(const TransposeShape& s) {
  std::vector<double> z;
  for (int k = 0; k < s.nz; ++k)
    for (int j = 0; j < s.ny; ++j)
      for (int i = 0; i < s.nx; ++i)
        for (int q = 0; q < s.words; ++q) z.push_back(label(i, j, k, q));
  return z;
}

void transpose_on_cpu(const TransposeShape& s, TransposeDirection dir, const std::vector<double>& from,
                      std::vector<double>& to) {
  const std::string stage = dir == TransposeDirection::z_to_x ? "fracstep/transpose_zx" : "fracstep/transpose_xz";
  const Variant& v = Registry::instance().get(stage, "cpu_serial");
  TransposeCall<double> c;
  c.shape = s, c.direction = dir, c.from = from.data(), c.to = to.data();
  c.exec.backend = Backend::cpu_serial;
  v.fn<TransposeCall<double>>()(c);
}

const TransposeShape kShapes[] = {{8, 3, 4, 2, 1}, {7, 2, 9, 4, 1}, {10, 3, 5, 3, 2}, {5, 1, 6, 4, 2}};

// Walks the x-slabs in their own order (slab d, then k, j, i, q): each value must be the point's label, with
// the slab's first column x0(d) and width nxs(d) from the split that gives the remainders to the first ranks.
TEST(FracstepTranspose, EveryPointLandsInItsXSlab) {
  for (const TransposeShape& s : kShapes) {
    const std::vector<double> z = labelled_zslabs(s);
    std::vector<double> x(z.size(), -1.0);
    transpose_on_cpu(s, TransposeDirection::z_to_x, z, x);
    std::size_t n = 0;
    int first = 0;
    for (int d = 0; d < s.p; ++d) {
      const int width = s.nx / s.p + (d < s.nx % s.p ? 1 : 0);
      EXPECT_EQ(s.x0(d), first);
      for (int k = 0; k < s.nz; ++k)
        for (int j = 0; j < s.ny; ++j)
          for (int i = first; i < first + width; ++i)
            for (int q = 0; q < s.words; ++q, ++n)
              ASSERT_EQ(x[n], label(i, j, k, q)) << "x-slab " << d << " point " << i << "," << j << "," << k << " word " << q
                                                 << " (" << s.nx << "x" << s.ny << "x" << s.nz << ", p " << s.p << ")";
      first += width;
    }
    EXPECT_EQ(n, z.size());
  }
}

// One known point: (5, 1, 3) of a 7x2x9 field over 4 ranks lies in x-slab 2 (columns 4, 5), at column 1 of
// that slab's 2: offset of the slab 4 * 2 * 9, then 1 + 2 (1 + 2 * 3) = 15.
TEST(FracstepTranspose, AKnownPointLandsWhereItShould) {
  const TransposeShape s{7, 2, 9, 4, 1};
  const std::vector<double> z = labelled_zslabs(s);
  std::vector<double> x(z.size(), -1.0);
  transpose_on_cpu(s, TransposeDirection::z_to_x, z, x);
  EXPECT_EQ(x[std::size_t(4 * 2 * 9 + 15)], label(5, 1, 3, 0));
  EXPECT_EQ(xslabs_index(s, 5, 1, 3, 0), std::size_t(4 * 2 * 9 + 15));
}

TEST(FracstepTranspose, ThereAndBackIsTheIdentity) {
  for (const TransposeShape& s : kShapes) {
    const std::vector<double> z = labelled_zslabs(s);
    std::vector<double> x(z.size(), -1.0), back(z.size(), -1.0);
    transpose_on_cpu(s, TransposeDirection::z_to_x, z, x);
    transpose_on_cpu(s, TransposeDirection::x_to_z, x, back);
    EXPECT_EQ(back, z) << s.nx << "x" << s.ny << "x" << s.nz << ", p " << s.p << ", words " << s.words;
    EXPECT_NE(x, z) << "p > 1 moves values";
  }
}

TEST(FracstepTranspose, ModelCountsTheLocalPassAndTheAllToAll) {
  const TransposeShape s{8, 3, 4, 4, 2};
  const WorkModel m = transpose_model(s, 8);
  EXPECT_EQ(m.points, 8.0 * 3 * 4);
  EXPECT_EQ(transpose_link_words(s), 8.0 * 3 * 4 * 2 * 3 / 4);  // (p - 1) / p of the field crosses between ranks
  EXPECT_EQ(m.bytes, (2.0 + 2.0 * 3 / 4) * 8 * 3 * 4 * 2 * 8);     // the local pass and the messages, read + write
  const TransposeShape uneven{7, 2, 9, 4, 1};                      // blocks of 2, 2, 2, 1 columns x 3, 2, 2, 2 planes
  double diagonal = 0;
  for (int r = 0; r < 4; ++r) diagonal += double(uneven.block_words(r, r));
  EXPECT_EQ(transpose_link_words(uneven), 7.0 * 2 * 9 - diagonal);
  EXPECT_EQ(diagonal, 2.0 * (2 * 3 + 2 * 2 + 2 * 2 + 1 * 2));
}

TEST(FracstepTranspose, RefusesARankWithoutAColumn) {
  const StageKind& k = StageKindRegistry::instance().get("fracstep/transpose_zx");
  EXPECT_THROW(k.fixture<double>()(FixtureSpec{"transpose_zx", Grid{3, 2, 8, 1, 1, 1}, Backend::cpu_serial, "p4", 1, true}),
               std::invalid_argument);
}

TEST(FracstepTranspose, OpenMpEqualsSerial) {
  VerifyOptions o;
  o.gpu = false, o.include_cpu = true, o.solver = "fracstep";
  int checked = 0;
  for (const VerifyResult& r : verify_variants(o)) {
    if (r.id.find("transpose") == std::string::npos) continue;
    ++checked;
    EXPECT_TRUE(r.pass) << r.id << " " << r.precision << " " << r.grid << " " << r.scheme << ": " << r.message;
  }
  EXPECT_EQ(checked, 2 * 2 * 4 * 2);  // 2 kinds x 2 grids x 4 workloads x 2 precisions
}

// ---------------------------------------------------------------------------------------------- GPU

TEST(FracstepTransposeGpu, EveryVariantEqualsTheReference) {
  NSB_NEEDS_GPU();
  for (const char* stage : {"fracstep/transpose_zx", "fracstep/transpose_xz"}) {
    VerifyOptions o;
    o.stage = stage;
    const std::vector<VerifyResult> results = verify_variants(o);
    EXPECT_EQ(results.size(), std::size_t(2 * 4 * 2 * 3)) << stage;  // 2 grids x 4 workloads x 2 precisions x 3 rows
    for (const VerifyResult& r : results)
      EXPECT_TRUE(r.pass) << r.id << ":" << r.tuning << " " << r.precision << " " << r.grid << " " << r.scheme << ": "
                          << r.message << " (" << r.max_rel_diff << ")";
  }
}

// The phases each variant times itself (what `nsbench stages` writes as a row's phases).
TEST(FracstepTransposeGpu, VariantsTimeTheirPhases) {
  NSB_NEEDS_GPU();
  for (const char* name : {"transpose_zx", "transpose_xz"}) {
    const StageKind& k = StageKindRegistry::instance().get(std::string("fracstep/") + name);
    const auto fx = k.fixture<double>()(FixtureSpec{name, Grid{64, 16, 32, 1, 1, 1}, Backend::cuda, "p2", 1, false});
    for (const char* variant : {"pack_copy_unpack", "ranks_peer"}) {
      const Variant& v = Registry::instance().get(k.id(), variant);
      fx->phase_reset();
      fx->run(v, v.tunings.front());
      fx->run(v, v.tunings.front());
      std::vector<std::string> names;
      for (const auto& [phase, secs] : fx->phase_seconds()) {
        names.push_back(phase);
        EXPECT_EQ(secs.size(), 2u) << variant << " " << phase;
        for (double t : secs) EXPECT_GT(t, 0.0);
      }
      const std::vector<std::string> expected = std::string(name) == "transpose_zx"
                                                    ? std::vector<std::string>{"pack", "all_to_all"}
                                                    : std::vector<std::string>{"all_to_all", "unpack"};
      EXPECT_EQ(names, expected) << name << "/" << variant;
    }
  }
}

}  // namespace
}  // namespace nsb
