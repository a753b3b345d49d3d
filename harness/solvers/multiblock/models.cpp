// Work models of the multiblock stage kinds: the fields each reads and writes, and the flops of its
// formulas counted by running them on an operation-counting number.
#include <cmath>
#include <vector>

#include "multiblock/stage_call.hpp"
#include "op_count.hpp"

namespace nsb {

namespace {

constexpr std::ptrdiff_t kSide = 16;  // a patch of counted values, stencils of reach 2 fit around its middle

struct CountedArrays {
  std::vector<std::vector<Counted>> store;
  MbArrays<Counted> a{};
  CountedArrays() : store(kMbFieldCount, std::vector<Counted>(kSide * kSide)) {
    for (int f = 0; f < kMbFieldCount; ++f) {
      for (std::size_t n = 0; n < store[std::size_t(f)].size(); ++n) store[std::size_t(f)][n] = 1.0 + 0.01 * double(n);
      a.f[f] = store[std::size_t(f)].data();
    }
  }
};

template <class F>
long count(F&& f) {
  Counted::ops = 0;
  f();
  return Counted::ops;
}

}  // namespace

MbStageFields mb_stage_fields(MbStage s) {
  const std::vector<int> metrics = {kXix, kXiy, kEtx, kEty};
  auto with = [](std::vector<int> a, const std::vector<int>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
  };
  switch (s) {
    case MbStage::conjugatep: return {with({kTs}, metrics), {kResT}};
    case MbStage::lamvis: return {{kRho, kRu, kRv, kE, kRk, kRw, kHlen}, {kMu, kMut}};
    case MbStage::deltatp: return {{kRho, kRu, kRv, kE, kMu, kMut, kHlen}, {kDt}};
    case MbStage::dtmin: return {{kDt}, {}};
    case MbStage::stressp: return {with({kRho, kRu, kRv, kE, kMu, kMut}, metrics), {kTxx, kTxy, kTyy, kQx, kQy}};
    case MbStage::stresstrb:
      return {with({kRho, kRu, kRv, kRk, kRw, kMu, kMut, kTxx, kTxy, kTyy, kHlen}, metrics), {kQkx, kQky, kQwx, kQwy, kSk, kSw}};
    case MbStage::flux:
      return {{kRho, kRu, kRv, kE, kTxx, kTxy, kTyy, kQx, kQy, kDt, kX, kY, kRes0, kRes1, kRes2, kRes3},
              {kRes0, kRes1, kRes2, kRes3}};
    case MbStage::fluxtrb:
      return {{kRho, kRu, kRv, kRk, kRw, kQkx, kQky, kQwx, kQwy, kSk, kSw, kDt, kX, kY, kRes4, kRes5}, {kRes4, kRes5}};
    case MbStage::ifsum:
      return {{kRes0, kRes1, kRes2, kRes3, kRes4, kRes5}, {kRes0, kRes1, kRes2, kRes3, kRes4, kRes5}};
    case MbStage::smthp: return {{kRho, kRu, kRv, kE, kVol, kRes0, kRes1, kRes2, kRes3}, {kRes0, kRes1, kRes2, kRes3}};
    case MbStage::smthtrb: return {{kRk, kRw, kVol, kRes4, kRes5}, {kRes4, kRes5}};
    case MbStage::multigrid:  // vol is the mesh's on the host: the traffic is the changes, down and up
      return {{kRes0, kRes1, kRes2, kRes3, kRes4, kRes5}, {kRes0, kRes1, kRes2, kRes3, kRes4, kRes5}};
    case MbStage::update:
      return {{kRho, kRu, kRv, kE, kRk, kRw, kRes0, kRes1, kRes2, kRes3, kRes4, kRes5, kVol, kTs, kResT},
              {kRho, kRu, kRv, kE, kRk, kRw, kTs}};
    case MbStage::resmax: return {{kRes0, kVol}, {}};
    case MbStage::bc: return {{kRho, kRu, kRv, kE, kRk, kRw, kTs}, {kRho, kRu, kRv, kE, kRk, kRw, kTs}};
    default: return {};
  }
}

double mb_flops_per_point(MbStage s) {
  CountedArrays c;
  const MbArrays<Counted>& a = c.a;
  const std::size_t n = std::size_t(kSide * 5 + 5);
  switch (s) {
    case MbStage::conjugatep: return double(count([&] { conjugatep_point(a, n, kSide); }));
    case MbStage::lamvis: return double(count([&] { lamvis_point(a, n); }));
    case MbStage::deltatp: return double(count([&] { deltatp_point(a, n); }));
    case MbStage::stressp: return double(count([&] { stressp_point(a, n, kSide); }));
    case MbStage::stresstrb: return double(count([&] { stresstrb_point(a, n, kSide); }));
    case MbStage::flux:  // per cell: the cell's change and its four corners' adds
      return double(count([&] {
        Counted out[4][4];
        ni_cell<MbMeanFlow>(a, n, kSide, out);
      })) + 16;
    case MbStage::fluxtrb:
      return double(count([&] {
        Counted out[4][2];
        ni_cell<MbTurbulence>(a, n, kSide, out);
      })) + 8;
    case MbStage::smthp: return double(count([&] { smthp_point(a, n, kSide, 5, 5, 9); }));
    case MbStage::smthtrb: return double(count([&] { smthtrb_point(a, n, kSide, 5, 5, 9); }));
    case MbStage::update: return double(count([&] { update_point(a, n, true); }));
    case MbStage::resmax: return double(count([&] { resmax_point(a, n); }));
    case MbStage::ifsum: return 1;  // an add per copy of a shared node (a band point's share)
    default: return 0;              // dtmin compares; bc copies and extrapolates; multigrid: a stand-in for data movement
  }
}

std::vector<int> mb_blocks_of(const std::vector<int>& blocks, MbStage s) {
  std::vector<int> out;
  for (int b : blocks)
    if (mb_is_fluid(b) ? mb_stage_on_fluid(s) : mb_stage_on_solid(s)) out.push_back(b);
  return out;
}

WorkModel mb_work_model(MbStage s, const MbMesh& m, const std::vector<int>& blocks, int elem_bytes) {
  const MbStageFields f = mb_stage_fields(s);
  const std::vector<int> mine = mb_blocks_of(blocks, s);
  const double words = double(f.reads.size() + f.writes.size());
  if (s == MbStage::ifsum || s == MbStage::bc) {  // the band, down and up
    const double band = double(mb_boundary_band(m, mine, s == MbStage::ifsum ? 1 : 3).size());
    return {band, band * words * elem_bytes, band * mb_flops_per_point(s) * double(f.reads.size())};
  }
  if (s == MbStage::update) {  // fluid nodes: 6 unknowns, 6 changes and vol in, 6 out; solid: T and res_T in, T out
    double fluid = 0, solid = 0;
    for (int b : mine) (mb_is_fluid(b) ? fluid : solid) += double(m.n) * m.n;
    return {fluid + solid, (19 * fluid + 3 * solid) * elem_bytes, fluid * mb_flops_per_point(s) + solid};
  }
  const bool cells = s == MbStage::flux || s == MbStage::fluxtrb;
  const double per_block = cells ? double(m.n - 1) * (m.n - 1) : double(m.n) * m.n;
  const double nodes = double(m.n) * m.n * double(mine.size());
  return {per_block * double(mine.size()), nodes * words * elem_bytes, per_block * double(mine.size()) * mb_flops_per_point(s)};
}

}  // namespace nsb
