#include "cpu_bandwidth.hpp"

#include <omp.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>

#include "placement.hpp"
#include "stats.hpp"

#if defined(__SSE2__) || defined(__AVX__)
#include <immintrin.h>
#endif

#include <unistd.h>

namespace nsb {

namespace {

// sysfs writes sizes as "32768K" or "32M".
std::size_t parse_cache_size(std::string text) {
  if (text.empty()) return 0;
  std::size_t scale = 1;
  const char unit = text.back();
  if (unit == 'K') scale = std::size_t(1) << 10;
  if (unit == 'M') scale = std::size_t(1) << 20;
  if (unit == 'G') scale = std::size_t(1) << 30;
  if (scale != 1) text.pop_back();
  try {
    return std::stoull(text) * scale;
  } catch (const std::exception&) {
    return 0;
  }
}

std::string read_line(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::string s;
  std::getline(in, s);
  return s;
}

// How many CPUs a sysfs list names ("0-7,16-23" is 16).
int count_cpu_list(const std::string& list) {
  int count = 0;
  std::size_t at = 0;
  while (at < list.size()) {
    const std::size_t comma = std::min(list.find(',', at), list.size());
    const std::string part = list.substr(at, comma - at);
    const std::size_t dash = part.find('-');
    try {
      count += dash == std::string::npos ? 1 : std::stoi(part.substr(dash + 1)) - std::stoi(part.substr(0, dash)) + 1;
    } catch (const std::exception&) {
      return 0;
    }
    at = comma + 1;
  }
  return count;
}

struct LastLevelCache {
  std::size_t bytes = 0;  // one instance
  int shared_by = 0;      // CPUs sharing an instance
};

LastLevelCache find_last_level_cache() {
  namespace fs = std::filesystem;
  LastLevelCache llc;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator("/sys/devices/system/cpu/cpu0/cache", ec)) {
    if (e.path().filename().string().rfind("index", 0) != 0) continue;
    if (read_line(e.path() / "type") == "Instruction") continue;
    const std::size_t bytes = parse_cache_size(read_line(e.path() / "size"));
    if (bytes <= llc.bytes) continue;
    llc.bytes = bytes;
    llc.shared_by = count_cpu_list(read_line(e.path() / "shared_cpu_list"));
  }
  return llc;
}

using Clock = std::chrono::steady_clock;

// One timed pass of `kernel` over n elements on `threads` threads (the same static schedule as the
// first touch, so each thread streams the pages it placed).
template <class Kernel>
double timed_pass(std::size_t n, int threads, const Kernel& kernel) {
  const auto start = Clock::now();
#pragma omp parallel for schedule(static) num_threads(threads)
  for (std::size_t i = 0; i < n; ++i) kernel(i);
  return std::chrono::duration<double>(Clock::now() - start).count();
}

nlohmann::json kernel_row(std::vector<double> seconds, double bytes_per_pass) {
  const Summary s = summarize(seconds);
  return {{"bytes_per_pass", bytes_per_pass}, {"repetitions", s.count}, {"median_s", s.median}, {"q1_s", s.q1},
          {"q3_s", s.q3}, {"min_s", s.min}, {"max_s", s.max}, {"bytes_per_second", bytes_per_pass / s.median},
          {"best_bytes_per_second", bytes_per_pass / s.min}};
}

// At least 4x the last-level cache the threads can fill (STREAM's rule): on a CPU of several LLC
// instances (one per AMD CCD), one instance per `shared_by` threads, up to all of them; 64 MiB at least
// (and where sysfs names no cache). One core on a large CPU so streams 4x its own instance, not 4x all.
std::size_t stream_array_elements(int threads) {
  const LastLevelCache llc = find_last_level_cache();
  const int cpus = omp_get_num_procs();
  const int instances = llc.shared_by > 0 ? (cpus + llc.shared_by - 1) / llc.shared_by : 1;
  const int reached = llc.shared_by > 0 ? (threads + llc.shared_by - 1) / llc.shared_by : instances;
  const std::size_t cache = llc.bytes * std::size_t(std::clamp(reached, 1, std::max(instances, 1)));
  return std::max<std::size_t>(4 * cache, std::size_t(64) << 20) / sizeof(double);
}

}  // namespace

std::size_t last_level_cache_bytes() {
  const LastLevelCache llc = find_last_level_cache();
  // A CPU of several LLC instances (one per AMD CCD) caches their sum when every core streams.
  const int cpus = omp_get_num_procs();
  const int instances = llc.shared_by > 0 ? (cpus + llc.shared_by - 1) / llc.shared_by : 1;
  return llc.bytes * std::size_t(std::max(instances, 1));
}

nlohmann::json measure_cpu_stream(int threads, int repetitions) {
  const std::size_t n = stream_array_elements(threads);
  // new double[n] leaves the pages untouched: the first touch below places them.
  const std::unique_ptr<double[]> a(new double[n]), b(new double[n]), c(new double[n]);
  double* const pa = a.get();
  double* const pb = b.get();
  double* const pc = c.get();
#pragma omp parallel for schedule(static) num_threads(threads)
  for (std::size_t i = 0; i < n; ++i) pa[i] = 1.0, pb[i] = 2.0, pc[i] = 0.0;
  const double scalar = 3.0;
  const auto copy = [=](std::size_t i) { pc[i] = pa[i]; };
  const auto triad = [=](std::size_t i) { pa[i] = pb[i] + scalar * pc[i]; };
  std::vector<double> copy_s, triad_s;
  for (int r = 0; r <= repetitions; ++r) {  // pass 0 warms up (page tables, clocks) and is not kept
    const double tc = timed_pass(n, threads, copy);
    const double tt = timed_pass(n, threads, triad);
    if (r == 0) continue;
    copy_s.push_back(tc);
    triad_s.push_back(tt);
  }
  const double array_bytes = double(n) * sizeof(double);
  return {{"threads", threads},
          {"array_bytes", array_bytes},
          {"copy", kernel_row(copy_s, 2 * array_bytes)},
          {"triad", kernel_row(triad_s, 3 * array_bytes)}};
}

namespace {

// The widest FP64 multiply-add this build has: a fused multiply-add where the build enables FMA (the
// hardware's FP64 peak, as the GPU's is counted), else a multiply and an add (SSE2, or scalar).
struct Fp64Vector {
#if defined(__AVX512F__)
  using V = __m512d;
  static constexpr int kDoubles = 8;
  static constexpr const char* kInstruction = "avx512f fma (_mm512_fmadd_pd)";
  static V splat(double v) { return _mm512_set1_pd(v); }
  static V multiply_add(V a, V x, V y) { return _mm512_fmadd_pd(a, x, y); }
  static double sum(V a) { return _mm512_reduce_add_pd(a); }
#elif defined(__AVX__) && defined(__FMA__)
  using V = __m256d;
  static constexpr int kDoubles = 4;
  static constexpr const char* kInstruction = "avx2 fma (_mm256_fmadd_pd)";
  static V splat(double v) { return _mm256_set1_pd(v); }
  static V multiply_add(V a, V x, V y) { return _mm256_fmadd_pd(a, x, y); }
  static double sum(V a) {
    double d[4];
    _mm256_storeu_pd(d, a);
    return d[0] + d[1] + d[2] + d[3];
  }
#elif defined(__SSE2__)
  using V = __m128d;
  static constexpr int kDoubles = 2;
  static constexpr const char* kInstruction = "sse2 multiply then add (no FMA in this build)";
  static V splat(double v) { return _mm_set1_pd(v); }
  static V multiply_add(V a, V x, V y) { return _mm_add_pd(_mm_mul_pd(a, x), y); }
  static double sum(V a) {
    double d[2];
    _mm_storeu_pd(d, a);
    return d[0] + d[1];
  }
#else
  using V = double;
  static constexpr int kDoubles = 1;
  static constexpr const char* kInstruction = "scalar multiply then add";
  static V splat(double v) { return v; }
  static V multiply_add(V a, V x, V y) { return a * x + y; }
  static double sum(V a) { return a; }
#endif
};

// Independent chains a thread keeps in flight: two FMA units of 4-5 cycles' latency need 8-10 to stay
// busy; 12 vectors (and the two constants) fit AVX2's 16 registers without spilling.
constexpr int kFp64Chains = 12;
constexpr long kFp64Iterations = long(1) << 21;  // 12 x 2^21 vector operations: 4-15 ms a pass, a core

// One thread's chains: a <- a*x + y converges to y/(1-x) = 1 (no overflow, no denormals); the sum keeps
// the compiler from dropping the loop.
double fp64_chains() {
  using F = Fp64Vector;
  F::V acc[kFp64Chains];
  for (int c = 0; c < kFp64Chains; ++c) acc[c] = F::splat(1.0 + 1e-3 * c);
  const F::V x = F::splat(1.0 - 1e-6), y = F::splat(1e-6);
  for (long i = 0; i < kFp64Iterations; ++i)
    for (int c = 0; c < kFp64Chains; ++c) acc[c] = F::multiply_add(acc[c], x, y);
  double s = 0;
  for (int c = 0; c < kFp64Chains; ++c) s += F::sum(acc[c]);
  return s;
}

}  // namespace

nlohmann::json measure_cpu_fp64(int threads, int repetitions) {
  std::vector<double> seconds;
  double sink = 0;
  for (int r = 0; r <= repetitions; ++r) {  // pass 0 warms up (clocks, the threads' start) and is not kept
    const auto start = Clock::now();
#pragma omp parallel num_threads(threads) reduction(+ : sink)
    sink += fp64_chains();
    const double s = std::chrono::duration<double>(Clock::now() - start).count();
    if (r > 0) seconds.push_back(s);
  }
  const double flops = 2.0 * threads * double(kFp64Iterations) * kFp64Chains * Fp64Vector::kDoubles;
  const Summary s = summarize(seconds);
  return {{"instruction", Fp64Vector::kInstruction}, {"doubles_a_vector", Fp64Vector::kDoubles},
          {"chains", kFp64Chains}, {"flops_per_pass", flops}, {"repetitions", s.count}, {"median_s", s.median},
          {"q1_s", s.q1}, {"q3_s", s.q3}, {"min_s", s.min}, {"max_s", s.max},
          {"flops_per_second", flops / s.median}, {"best_flops_per_second", flops / s.min},
          {"checksum", sink}};
}

namespace {

// A measurement stands for this machine, these threads and this binding for a day: the CPU's bandwidth
// does not change between the runs of a study, and measuring it costs 1-3 s a process, which a study of
// hundreds of short runs would pay hundreds of times. The file records when and by whom it was measured,
// and every result copies that (cached_from, measured_at). NSB_CPU_BANDWIDTH_CACHE=off measures afresh
// and keeps nothing; =refresh measures afresh and keeps it (nsbench bandwidth does).
constexpr double kCacheMaxAgeSeconds = 24 * 3600;

std::string cache_key(int threads) {
  auto env = [](const char* v) { return std::string(std::getenv(v) ? std::getenv(v) : "-"); };
  return kernel_hostname() + "|" + std::to_string(threads) + "|" + env("OMP_PROC_BIND") + "|" + env("OMP_PLACES") +
         "|" + std::to_string(last_level_cache_bytes());
}

std::filesystem::path cache_file(int threads) {
  const char* dir = std::getenv("NSB_CACHE_DIR");
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  const char* home = std::getenv("HOME");
  const std::filesystem::path root = dir ? dir : xdg ? std::filesystem::path(xdg) / "nsbench"
                                      : std::filesystem::path(home ? home : "/tmp") / ".cache" / "nsbench";
  return root / ("cpu-stream-" + kernel_hostname() + "-t" + std::to_string(threads) + ".json");
}

std::string cache_mode() {  // "on" (default), "off" (neither read nor write), "refresh" (measure, then write)
  const char* v = std::getenv("NSB_CPU_BANDWIDTH_CACHE");
  return v && *v ? v : "on";
}

double unix_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// The cached row for `threads`, or null where there is none, it is older than a day or for another key.
nlohmann::json cached_stream(int threads) {
  if (cache_mode() != "on") return nullptr;
  std::ifstream in(cache_file(threads));
  if (!in) return nullptr;
  const nlohmann::json c = nlohmann::json::parse(in, nullptr, false);
  if (c.is_discarded() || c.value("key", "") != cache_key(threads) ||
      unix_now() - c.value("measured_unix", 0.0) > kCacheMaxAgeSeconds)
    return nullptr;
  nlohmann::json row = c["row"];
  row["cached_from"] = cache_file(threads).string();
  return row;
}

// Stores a fresh row (written to a temporary file and renamed: a concurrent reader sees the old or the
// new file, never half of one). A cache that cannot be written costs the next process a measurement.
void store_stream(int threads, nlohmann::json& row) {
  row["measured_at_unix"] = unix_now();
  if (cache_mode() == "off") return;
  std::error_code ec;
  const std::filesystem::path f = cache_file(threads);
  std::filesystem::create_directories(f.parent_path(), ec);
  const std::filesystem::path tmp = f.string() + ".tmp-" + std::to_string(::getpid());
  {
    std::ofstream out(tmp);
    out << nlohmann::json{{"key", cache_key(threads)}, {"measured_unix", row["measured_at_unix"]}, {"row", row}}.dump();
    if (!out) return;
  }
  std::filesystem::rename(tmp, f, ec);
  if (ec) std::filesystem::remove(tmp, ec);
}

}  // namespace

nlohmann::json cpu_bandwidth(const std::vector<int>& thread_counts) {
  static std::mutex lock;
  static std::map<int, nlohmann::json> measured;  // threads -> measurement, once per process
  constexpr int kRepetitions = 5;  // a large CPU's one-core pass is 0.1-0.3 s: about 2 s in all
  const std::lock_guard<std::mutex> hold(lock);
  std::vector<int> counts = {1};
  for (int t : thread_counts)
    if (t > 1 && std::find(counts.begin(), counts.end(), t) == counts.end()) counts.push_back(t);
  nlohmann::json rows = nlohmann::json::array();
  for (int t : counts) {
    if (!measured.count(t)) {
      nlohmann::json row = cached_stream(t);
      if (row.is_null() || !row.contains("fp64")) {  // a cache from before the FP64 rate was measured too
        row = measure_cpu_stream(t, kRepetitions);
        row["fp64"] = measure_cpu_fp64(t, kRepetitions);
        store_stream(t, row);
      }
      measured[t] = row;
    }
    rows.push_back(measured[t]);
  }
  return {{"method", "STREAM-style copy (c=a, 16 B an element) and triad (a=b+s*c, 24 B an element) in double, "
                     "arrays at least 4x the last-level cache the threads reach (64 MiB at least), first-touched by the threads that stream them "
                     "(schedule(static)); one untimed pass, then the repetitions; bytes_per_second of the median "
                     "pass; write-allocate traffic not counted (STREAM's convention); measured once a day per host, threads and binding "
                     "(a row with cached_from was read from that cache; NSB_CPU_BANDWIDTH_CACHE=off measures afresh). fp64: "
                     "the FP64 rate beside it, each thread 12 independent chains a = a*x + y of the widest vector the "
                     "reference's build has (fused multiply-add where it enables FMA: the hardware's peak, as the "
                     "GPU's FP64 peak is counted), 2 flops a lane an operation, flops_per_second of the median pass"},
          {"by_threads", rows}};
}

double cpu_stream_bytes_per_second(const nlohmann::json& bandwidth, const char* kernel, int threads) {
  if (!bandwidth.is_object() || !bandwidth.contains("by_threads")) return std::nan("");
  for (const nlohmann::json& row : bandwidth["by_threads"])
    if (row["threads"].get<int>() == threads) return row[kernel]["bytes_per_second"].get<double>();
  return std::nan("");
}

void pin_threads_unless_told(char** argv) {
  if (std::getenv("OMP_PROC_BIND") || std::getenv("OMP_PLACES")) return;  // the user's choice stands
  // The OpenMP runtime reads these once, when it loads: the process starts again with them set.
  ::setenv("OMP_PROC_BIND", "close", 1);
  ::setenv("OMP_PLACES", "cores", 1);
  ::setenv("NSB_PINNED_BY_NSBENCH", "1", 1);
  ::execv("/proc/self/exe", argv);
  std::fprintf(stderr, "nsbench: could not restart with pinned threads (%s); threads stay unpinned\n",
               std::strerror(errno));
}

nlohmann::json cpu_thread_binding() {
  static const char* const kBindNames[] = {"false", "true", "master", "close", "spread"};
  const int bind = int(omp_get_proc_bind());
  nlohmann::json places = nlohmann::json::array();
  for (int p = 0; p < omp_get_num_places(); ++p) {
    std::vector<int> ids(std::size_t(omp_get_place_num_procs(p)));
    omp_get_place_proc_ids(p, ids.data());
    places.push_back(ids);
  }
  const auto env = [](const char* name) -> nlohmann::json {
    const char* v = std::getenv(name);
    return v ? nlohmann::json(v) : nlohmann::json(nullptr);
  };
  return {{"proc_bind", bind >= 0 && bind < 5 ? kBindNames[bind] : std::to_string(bind)},
          {"places", places},
          {"OMP_PROC_BIND", env("OMP_PROC_BIND")},
          {"OMP_PLACES", env("OMP_PLACES")},
          {"set_by_nsbench", std::getenv("NSB_PINNED_BY_NSBENCH") != nullptr}};
}

}  // namespace nsb
