// A TridiagCall's split solve (tridiag/pdd, tridiag/ppt) on p real ranks: one host thread a rank (the
// threads driver's ThreadComm), each holding only its block of rows of every system in memory of its own
// (a GPU of its own on the cuda backend), solving with split_solve_rank and its messages. The call's
// arrays are scattered to the ranks before and gathered after (not a rank's work: the variants built on
// this check real ranks against the reference; their time is not a rank's).
#pragma once

#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "comm.hpp"
#include "fields.hpp"
#include "tridiag/split_phases.hpp"
#include "tridiag/stage_call.hpp"

namespace nsb {

// Rows [first, first + m) of the systems in a rank's arrays of layout `mine` (m rows), read by global row.
template <class T>
struct BlockRows {
  const T *a, *b, *c;
  std::size_t f, stride;
  int first;
  struct Row {
    T lower, diag, upper;
  };
  NSB_TRIDIAG_HD Row operator()(int j) const {
    const std::size_t i = f + std::size_t(j - first) * stride;
    return {a[i], b[i], c[i]};
  }
};
template <class T>
struct BlockLines {
  TridiagLayout mine;
  int n, p, first;
  const T *a, *b, *c;
  T *x, *v, *w, *cp;
  NSB_TRIDIAG_HD std::size_t count() const { return std::size_t(mine.batch); }
  NSB_TRIDIAG_HD int ranks() const { return p; }
  bool whole_line_steps() const { return false; }
  NSB_TRIDIAG_HD void before(std::size_t) const {}
  NSB_TRIDIAG_HD void after(std::size_t) const {}
  NSB_TRIDIAG_HD SplitLine<T, BlockRows<T>> line(std::size_t s) const {
    const std::size_t f = mine.index(int(s), 0);
    const auto st = std::ptrdiff_t(mine.stride());
    return {BlockRows<T>{a, b, c, f, mine.stride(), first}, n, x + f, st, v + f, w + f, cp + f, st, first, 0};
  }
};

// Copies rows [j0, j0 + m) of every system between the whole layout and a block layout: a run of m
// inner values a group of `inner` interleaved systems. copy(dst, src, words).
template <class T, class Copy>
void copy_block_rows(const TridiagLayout& whole, int j0, int m, T* block, const T* all, bool to_block, const Copy& copy) {
  const TridiagLayout mine{m, whole.batch, whole.inner};
  for (int s = 0; s < whole.batch; s += whole.inner) {
    T* mine_run = block + mine.index(s, 0);
    const T* all_run = all + whole.index(s, j0);
    const std::size_t words = std::size_t(m) * whole.stride();
    if (to_block) copy(mine_run, all_run, words);
    else copy(const_cast<T*>(all_run), mine_run, words);
  }
}

// Side: what a rank's backend does. enter(r) (before anything: its device, its stream), on_device(),
// copy(dst, src, words) (in the rank's stream order), launch() (split_phases' Launch), messages(comm)
// (a std::unique_ptr<SplitMessages<T>>), sync(), leave().
template <class T, class Side>
void split_call_on_ranks(const TridiagCall<T>& call, bool exact, const Side& side_template) {
  const TridiagLayout& l = call.layout;
  const int p = call.ranks;
  const auto group = std::make_shared<ThreadGroup>(p);
  std::string error;
  std::mutex error_mutex;
  std::vector<std::thread> ranks;
  for (int r = 0; r < p; ++r)
    ranks.emplace_back([&, r] {
      Side side = side_template;
      ThreadComm comm(group, r);
      try {
        side.enter(r);
        const int j0 = pdd_block_start(l.n, p, r), m = pdd_block_start(l.n, p, r + 1) - j0;
        const TridiagLayout mine{m, l.batch, l.inner};
        const bool dev = side.on_device();
        Buffer<T> a(mine.points(), dev, "tridiag ranks: a"), b(mine.points(), dev, "b"), c(mine.points(), dev, "c"),
            x(mine.points(), dev, "x"), v(mine.points(), dev, "v"), w(mine.points(), dev, "w"), cp(mine.points(), dev, "cp"),
            words(split_buffer_words(std::size_t(l.batch), p, exact, 1), dev, "tridiag ranks: messages");
        const auto copy = [&](T* dst, const T* src, std::size_t n) { side.copy(dst, src, n); };
        for (auto [mine_array, all] : {std::pair{a.get(), call.a}, {b.get(), call.b}, {c.get(), call.c}, {x.get(), call.x}})
          copy_block_rows(l, j0, m, mine_array, all, true, copy);
        const auto messages = side.messages(comm);
        split_solve_rank(BlockLines<T>{mine, l.n, p, j0, a.get(), b.get(), c.get(), x.get(), v.get(), w.get(), cp.get()},
                         split_buffers(words.get(), std::size_t(l.batch), p, exact, 1), exact, side.launch(), RankPhaseSections{},
                         r, *messages);
        copy_block_rows(l, j0, m, x.get(), call.x, false, copy);
        side.sync();
        side.leave();
      } catch (const PeerFailed&) {
      } catch (const std::exception& e) {
        {
          std::lock_guard<std::mutex> lock(error_mutex);
          if (error.empty()) error = "rank " + std::to_string(r) + ": " + e.what();
        }
        group->abort(e.what());
      }
    });
  for (std::thread& t : ranks) t.join();
  if (!error.empty()) throw std::runtime_error("tridiag on ranks: " + error);
}

}  // namespace nsb
