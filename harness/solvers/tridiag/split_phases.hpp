// The split y solve of Ha, Park & You's y-slabs (PDD for ADI-Y, PPT for TDMA-C: pdd_formulas.hpp) run
// the way p ranks would run it, phase by phase over all lines, one virtual rank after another, so that
// each rank's part of each phase is a launch of its own that a caller can time (notes Sec. 6.3 and 6.5:
// "execute the ranks one after another, timing each rank's local phases"):
//
//   local     Eqs. (5)-(6) on the rank's block of every line                   split_local
//             (or, factors set up once: Eq. (5)'s x~ alone                   split_local_factored)
//   pack      the rank's boundary values into its send buffer                  split_boundary
//   exchange  the messages as device copies: PDD's x~_1, v_1 from rank r+1 (Algorithm 1, Step 4) and
//             y_{2r-1} from rank r-1 (Step 6); PPT's all-gather of every rank's six values
//   reduced   PDD's 2x2 interface solve (Step 5); PPT's whole reduced system (Eq. 10)
//   correct   Eq. (8) on the rank's block                                      split_correct
//
// The numbers are those of split_line_solve (the one-thread form) bit for bit: the same formulas in the
// same order. The exchange's time is a device copy's, not a link's: a study puts the communication
// model (reports/ha2018_comm_model.py) in its place.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include "timer.hpp"
#include "tridiag/pdd_formulas.hpp"

namespace nsb {

enum SplitPhase : int { kSplitLocal = 0, kSplitPack, kSplitExchange, kSplitReduced, kSplitCorrect, kSplitPhases };
inline const char* const kSplitPhaseNames[kSplitPhases] = {"local", "pack", "exchange", "reduced", "correct"};

// The scratch of a phased solve of `lines` lines over p ranks (the caller's memory, on the solve's
// backend), as a rank would hold it: [slot][value][line] so that a rank's message is contiguous. The
// emulation holds a slot for every rank (slots = p); a real rank its own (slots = 1, split_solve_rank).
template <class T>
struct SplitBuffers {
  T* send = nullptr;   // p * kSbCount * lines: each rank's boundary values
  T* recv = nullptr;   // PDD: p * 2 * lines (x~_1, v_1 of rank r+1); PPT: p * p * kSbCount * lines (all of send)
  T* above = nullptr;  // p * lines: y_{2r-1}, what multiplies v^(r) in Eq. (8)
  T* below = nullptr;  // p * lines: y_{2r+2}, what multiplies w^(r)
  T* y_send = nullptr; // p * lines: PDD's y_{2r+1}, sent to rank r+1 (Step 6)
};
inline std::size_t split_buffer_words(std::size_t lines, int p, bool exact, int slots = -1) {
  const std::size_t pp = std::size_t(p), ss = std::size_t(slots < 0 ? p : slots);
  return lines * ss * (kSbCount + (exact ? pp * kSbCount : 2) + 3);
}
template <class T>
SplitBuffers<T> split_buffers(T* words, std::size_t lines, int p, bool exact, int slots = -1) {
  const std::size_t pp = std::size_t(p), ss = std::size_t(slots < 0 ? p : slots);
  SplitBuffers<T> b;
  b.send = words;
  b.recv = b.send + ss * kSbCount * lines;
  b.above = b.recv + ss * (exact ? pp * kSbCount : 2) * lines;
  b.below = b.above + ss * lines;
  b.y_send = b.below + ss * lines;
  return b;
}

// The phases as functors over a line index (a kernel's or a loop's body), for rank r's block with its
// values in buffer slot `slot` (r in the emulation, 0 on a real rank). Lines: count(), ranks(),
// line(l) (a SplitLine), and where whole_line_steps(), before(l) and after(l): work on the whole line
// before and after it is split (the Poisson null-space line's mean and level: in a real run a reduction
// over the ranks of one line; here not timed per rank).
template <class T, class Lines>
struct SplitBeforeOp {
  Lines lines;
  NSB_TRIDIAG_HD void operator()(std::size_t l) const { lines.before(l); }
};
template <class T, class Lines>
struct SplitAfterOp {
  Lines lines;
  NSB_TRIDIAG_HD void operator()(std::size_t l) const { lines.after(l); }
};
template <class T, class Lines>
struct SplitLocalOp {
  Lines lines;
  int r;
  NSB_TRIDIAG_HD void operator()(std::size_t l) const { split_local(lines.line(l), lines.ranks(), r); }
};
// The local phase with the factors computed once (split_local_factored): for Lines whose lines point v,
// w, c' at factors set up before the solve (Lines::factors_shared(), e.g. AdiYLines of split_factors=shared).
template <class T, class Lines>
struct SplitLocalFactoredOp {
  Lines lines;
  int r;
  NSB_TRIDIAG_HD void operator()(std::size_t l) const { split_local_factored(lines.line(l), lines.ranks(), r); }
};
// The set-up of shared factors: ranks [r0, r1)'s v, w, c' (split_factor) of lines [0, count), computed
// once before the solves whose local phase reads them (a real rank: its own block only).
template <class T, class Lines>
struct SplitFactorOp {
  Lines lines;
  int r;
  NSB_TRIDIAG_HD void operator()(std::size_t l) const { split_factor(lines.line(l), lines.ranks(), r); }
};
template <class T, class Lines, class Launch>
void split_factor_setup(const Lines& lines, std::size_t count, const Launch& launch, int r0, int r1) {
  for (int r = r0; r < r1; ++r) launch.each(count, SplitFactorOp<T, Lines>{lines, r});
}
// Rank r's local phase as `phase(op)` runs it: the paper's per-line form (Algorithm 1: x~, v, w and c'
// on every line), or the x sweep alone where the lines share factors set up beforehand.
template <class T, class Lines, class Phase>
void split_local_phase(const Lines& lines, int r, const Phase& phase) {
  if constexpr (requires { lines.factors_shared(); })
    if (lines.factors_shared()) return phase(SplitLocalFactoredOp<T, Lines>{lines, r});
  phase(SplitLocalOp<T, Lines>{lines, r});
}
template <class T, class Lines>
struct SplitPackOp {
  Lines lines;
  SplitBuffers<T> b;
  int r, slot;
  NSB_TRIDIAG_HD void operator()(std::size_t l) const {
    const std::size_t n = lines.count();
    const auto line = lines.line(l);
    for (int q = 0; q < kSbCount; ++q) b.send[(std::size_t(slot) * kSbCount + q) * n + l] = split_boundary(line, lines.ranks(), r, q);
  }
};
// PDD Step 5 on rank r < p-1: its x~_m, w_m and the received x~_1, v_1 of rank r+1.
template <class T, class Lines>
struct SplitPddOp {
  Lines lines;
  SplitBuffers<T> b;
  int r, slot;
  NSB_TRIDIAG_HD void operator()(std::size_t l) const {
    const std::size_t n = lines.count();
    const auto line = lines.line(l);
    const T* in = b.recv + std::size_t(slot) * 2 * n;
    const PddPair<T> y = pdd_interface(split_boundary(line, lines.ranks(), r, kSbXm), split_boundary(line, lines.ranks(), r, kSbWm),
                                       in[l], in[n + l]);
    b.below[std::size_t(slot) * n + l] = y.hi, b.y_send[std::size_t(slot) * n + l] = y.lo;
  }
};
// PPT Eq. (10) on rank r: the whole reduced system from its copy of the all-gather.
template <class T, class Lines>
struct SplitPptOp {
  Lines lines;
  SplitBuffers<T> b;
  int r, slot;
  NSB_TRIDIAG_HD void operator()(std::size_t l) const {
    const std::size_t n = lines.count();
    const int p = lines.ranks();
    const T* all = b.recv + std::size_t(slot) * std::size_t(p) * kSbCount * n;
    const auto bound = [&](int i, int q) { return all[(std::size_t(i) * kSbCount + q) * n + l]; };
    PptReduced<T> z{};
    ppt_reduced_solve(z, bound, p);
    const PddPair<T> y = ppt_rank_pair(z, p, r);
    b.above[std::size_t(slot) * n + l] = y.lo, b.below[std::size_t(slot) * n + l] = y.hi;
  }
};
template <class T, class Lines>
struct SplitCorrectOp {
  Lines lines;
  SplitBuffers<T> b;
  int r, slot;
  NSB_TRIDIAG_HD void operator()(std::size_t l) const {
    const std::size_t n = lines.count();
    const int p = lines.ranks();
    split_correct(lines.line(l), p, r, r > 0 ? b.above[std::size_t(slot) * n + l] : T(0),
                  r + 1 < p ? b.below[std::size_t(slot) * n + l] : T(0));
  }
};

// Where rank r's phase q is timed: section base + r * kSplitPhases + q of the caller's timer (none: untimed).
struct RankPhaseSections {
  SectionTimer* timer = nullptr;
  int base = -1;
  void begin(int r, int q) const {
    if (timer && base >= 0) timer->begin(base + r * kSplitPhases + q);
  }
  void end(int r, int q) const {
    if (timer && base >= 0) timer->end(base + r * kSplitPhases + q);
  }
};

// The whole phased solve. Launch: each(count, op) runs op(l) for every line (a loop or a kernel on the
// solve's stream), copy(dst, src, words) a message.
template <class T, class Lines, class Launch>
void split_solve_phased(const Lines& lines, const SplitBuffers<T>& b, bool exact, const Launch& launch,
                        const RankPhaseSections& sec) {
  const std::size_t n = lines.count();
  const int p = lines.ranks();
  const auto phase = [&](int r, int q, const auto& op) {
    sec.begin(r, q);
    launch.each(n, op);
    sec.end(r, q);
  };
  const auto message = [&](int r, T* dst, const T* src, std::size_t words) {
    sec.begin(r, kSplitExchange);
    launch.copy(dst, src, words);
    sec.end(r, kSplitExchange);
  };
  if (lines.whole_line_steps()) launch.each(n, SplitBeforeOp<T, Lines>{lines});
  for (int r = 0; r < p; ++r) split_local_phase<T>(lines, r, [&](const auto& op) { phase(r, kSplitLocal, op); });
  for (int r = 0; r < p; ++r) phase(r, kSplitPack, SplitPackOp<T, Lines>{lines, b, r, r});
  const std::size_t rank_words = std::size_t(kSbCount) * n;
  if (exact) {  // the all-gather: every rank receives all p contributions
    for (int r = 0; r < p; ++r) message(r, b.recv + std::size_t(r) * p * rank_words, b.send, std::size_t(p) * rank_words);
    for (int r = 0; r < p; ++r) phase(r, kSplitReduced, SplitPptOp<T, Lines>{lines, b, r, r});
  } else {  // Step 4: x~_1, v_1 (contiguous in the send buffer) from rank r+1; Step 6: y from rank r-1
    for (int r = 0; r + 1 < p; ++r) message(r, b.recv + std::size_t(r) * 2 * n, b.send + std::size_t(r + 1) * rank_words, 2 * n);
    for (int r = 0; r + 1 < p; ++r) phase(r, kSplitReduced, SplitPddOp<T, Lines>{lines, b, r, r});
    for (int r = 1; r < p; ++r) message(r, b.above + std::size_t(r) * n, b.y_send + std::size_t(r - 1) * n, n);
  }
  for (int r = 0; r < p; ++r) phase(r, kSplitCorrect, SplitCorrectOp<T, Lines>{lines, b, r, r});
  if (lines.whole_line_steps()) launch.each(n, SplitAfterOp<T, Lines>{lines});
}

// The messages of a real rank's split solve (split_solve_rank), between arrays of the solve's backend.
// Every rank makes every call, in the same order; a call returns when recv holds its words (in the
// stream order of the rank's Launch on a GPU).
template <class T>
struct SplitMessages {
  virtual ~SplitMessages() = default;
  // recv = every rank's `words` words of send, in rank order (PPT's all-gather).
  virtual void allgather(const T* send, T* recv, std::size_t words) = 0;
  // recv = rank r + 1's `words` words of send (PDD Step 4); the last rank receives nothing.
  virtual void from_next(const T* send, T* recv, std::size_t words) = 0;
  // recv = rank r - 1's (PDD Step 6); the first rank receives nothing.
  virtual void from_prev(const T* send, T* recv, std::size_t words) = 0;
};

// Rank r's own part of the split solve, as a rank of a real y-slab run does it: the phases above on its
// block of every line (Lines hand out lines that hold its rows only: SplitLine::first), its values in
// buffer slot 0 (split_buffers(.., slots = 1)), the messages through m. The numbers are the emulation's
// (split_solve_phased) bit for bit. Each message is timed as the rank's exchange: it includes the wait
// for the other ranks. Lines with whole-line steps (the Poisson null-space line) are the caller's: a
// sum over the ranks, not a rank's loop.
template <class T, class Lines, class Launch>
void split_solve_rank(const Lines& lines, const SplitBuffers<T>& b, bool exact, const Launch& launch,
                      const RankPhaseSections& sec, int r, SplitMessages<T>& m) {
  const std::size_t n = lines.count();
  const int p = lines.ranks();
  const auto phase = [&](int q, const auto& op) {
    sec.begin(r, q);
    launch.each(n, op);
    sec.end(r, q);
  };
  const auto message = [&](const auto& send) {
    sec.begin(r, kSplitExchange);
    send();
    sec.end(r, kSplitExchange);
  };
  split_local_phase<T>(lines, r, [&](const auto& op) { phase(kSplitLocal, op); });
  phase(kSplitPack, SplitPackOp<T, Lines>{lines, b, r, 0});
  if (exact) {
    message([&] { m.allgather(b.send, b.recv, std::size_t(kSbCount) * n); });
    phase(kSplitReduced, SplitPptOp<T, Lines>{lines, b, r, 0});
  } else {  // x~_1, v_1 lead the send buffer (kSbX1, kSbV1)
    message([&] { m.from_next(b.send, b.recv, 2 * n); });
    if (r + 1 < p) phase(kSplitReduced, SplitPddOp<T, Lines>{lines, b, r, 0});
    message([&] { m.from_prev(b.y_send, b.above, n); });
  }
  phase(kSplitCorrect, SplitCorrectOp<T, Lines>{lines, b, r, 0});
}

// V2-async (notes Sec. 6.1's "V2 with communication/computation overlap"): a real rank's split solve
// with its lines cut into batches whose messages travel while the next batch computes.
//
// A batch is a contiguous range of the Lines' indices (SplitLinesRange: line(l) = lines.line(first + l)),
// with its own SplitBuffers carved from the same scratch (split_buffer_words is linear in the lines, so the
// batches together fit the words of the whole). SplitOverlap orders the rank's compute work (the Launch's
// stream) against its messages (the SplitMessages, on a stream of their own): on a GPU events between two
// streams (variants/tridiag/split_overlap.cuh); on the host, where every call runs when it is made, it has
// nothing to do (test_tridiag's logs the order instead).
template <class Lines>
struct SplitLinesRange {
  Lines lines;
  std::size_t first = 0, n = 0;
  NSB_TRIDIAG_HD std::size_t count() const { return n; }
  NSB_TRIDIAG_HD int ranks() const { return lines.ranks(); }
  NSB_TRIDIAG_HD auto line(std::size_t l) const { return lines.line(first + l); }
  bool factors_shared() const {
    if constexpr (requires { lines.factors_shared(); }) return lines.factors_shared();
    else return false;
  }
};

class SplitOverlap {
 public:
  virtual ~SplitOverlap() = default;
  virtual void start() = 0;                   // a solve begins: its marks are numbered from 0 again
  virtual void messages_after_compute() = 0;  // messages queued from now on wait for the compute work queued so far
  virtual int mark_messages() = 0;            // a mark after the messages queued so far
  virtual void compute_after(int mark) = 0;   // compute work queued from now on waits for that mark
};

// Rank r's split solve as split_solve_rank computes it, the lines in `batches` batches (at most one a
// line). Issue order: every batch's local phase and pack, each batch's first message (PDD Step 4, PPT's
// all-gather) posted right after its pack, so that message b travels while batch b + 1 computes; then
// each batch's reduced phase once its message has arrived, PDD's second message (Step 6) posted right
// after it; then each batch's correction once that one has arrived. A line's arithmetic is
// split_solve_rank's (the same phase functors), so the numbers are bit for bit; only the launches and the
// messages' grouping differ. words: split_buffer_words(lines.count(), p, exact, 1) of the solve's backend.
// Every rank makes the same calls in the same order (the batches depend on the line count only). When
// it returns, the compute work queued after it waits for every message. The phases are not timed one by
// one (they run beside the messages): the caller times the whole solve.
template <class T, class Lines, class Launch>
void split_solve_rank_pipelined(const Lines& lines, T* words, bool exact, const Launch& launch, int r, SplitMessages<T>& m,
                                SplitOverlap& overlap, int batches) {
  const std::size_t n = lines.count();
  const int p = lines.ranks();
  const std::size_t k = std::min<std::size_t>(std::size_t(batches < 1 ? 1 : batches), n);
  std::vector<SplitLinesRange<Lines>> part;
  std::vector<SplitBuffers<T>> buf;
  for (std::size_t b = 0; b < k; ++b) {
    const std::size_t first = n * b / k, count = n * (b + 1) / k - first;
    part.push_back({lines, first, count});
    buf.push_back(split_buffers(words + split_buffer_words(first, p, exact, 1), count, p, exact, 1));
  }
  std::vector<int> arrived(k), returned(k);
  overlap.start();
  for (std::size_t b = 0; b < k; ++b) {  // local and pack; the batch's first message as soon as its pack is queued
    const std::size_t nb = part[b].count();
    split_local_phase<T>(part[b], r, [&](const auto& op) { launch.each(nb, op); });
    launch.each(nb, SplitPackOp<T, SplitLinesRange<Lines>>{part[b], buf[b], r, 0});
    overlap.messages_after_compute();
    if (exact) m.allgather(buf[b].send, buf[b].recv, std::size_t(kSbCount) * nb);
    else m.from_next(buf[b].send, buf[b].recv, 2 * nb);  // x~_1, v_1 lead the send buffer (kSbX1, kSbV1)
    arrived[b] = overlap.mark_messages();
  }
  for (std::size_t b = 0; b < k; ++b) {  // the reduced system once the batch's message is here
    const std::size_t nb = part[b].count();
    overlap.compute_after(arrived[b]);
    if (exact) {
      launch.each(nb, SplitPptOp<T, SplitLinesRange<Lines>>{part[b], buf[b], r, 0});
      continue;
    }
    if (r + 1 < p) launch.each(nb, SplitPddOp<T, SplitLinesRange<Lines>>{part[b], buf[b], r, 0});
    overlap.messages_after_compute();
    m.from_prev(buf[b].y_send, buf[b].above, nb);
    returned[b] = overlap.mark_messages();
  }
  for (std::size_t b = 0; b < k; ++b) {
    if (!exact) overlap.compute_after(returned[b]);
    launch.each(part[b].count(), SplitCorrectOp<T, SplitLinesRange<Lines>>{part[b], buf[b], r, 0});
  }
}

// The host's Launch: loops (OpenMP where asked) and copies.
struct HostSplitLaunch {
  int threads = 1;
  bool parallel = false;
  template <class Op>
  void each(std::size_t n, const Op& op) const {
#if defined(_OPENMP)  // nvcc's translation units include this header without OpenMP
#pragma omp parallel for schedule(static) num_threads(threads) if (parallel)
#endif
    for (std::ptrdiff_t l = 0; l < std::ptrdiff_t(n); ++l) op(std::size_t(l));
  }
  template <class T>
  void copy(T* dst, const T* src, std::size_t words) const {
    for (std::size_t i = 0; i < words; ++i) dst[i] = src[i];
  }
};

}  // namespace nsb
