#include "run/result.hpp"

#include <omp.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <thread>

#include <unistd.h>

#include "build_info.hpp"  // generated each build: git commit, compiler, flags
#include "cpu_bandwidth.hpp"
#include "device.hpp"
#include "placement.hpp"

namespace nsb {

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  return "unknown";
}

namespace {

}  // namespace

nlohmann::json summary_json(const Summary& s) {
  return {{"count", s.count}, {"median", s.median}, {"q1", s.q1}, {"q3", s.q3}, {"iqr", s.iqr},
          {"min", s.min},     {"max", s.max},       {"mean", s.mean}};
}

nlohmann::json kernels_run(const Variant& v, const Tuning& t, int elem_bytes) {
  nlohmann::json kernels = nlohmann::json::array();
  for (const KernelRef& k : v.kernels) {
    if (k.elem_bytes != elem_bytes || !k.runs(t)) continue;
    const device::KernelAttributes a = device::kernel_attributes(k.fn);
    kernels.push_back({{"name", k.name}, {"registers", a.registers}, {"static_shared_bytes", a.static_shared_bytes},
                       {"local_bytes", a.local_bytes}, {"max_threads_per_block", a.max_threads_per_block}});
  }
  return kernels;
}

namespace {

// Writes `text` to a new file `tmp`; "" when done, else why not (strerror: "No space left on device"). A failed
// write removes what it left, so a full disk keeps no half file.
std::string write_new_file(const std::string& tmp, const std::string& text) {
  std::FILE* f = std::fopen(tmp.c_str(), "wx");
  if (!f) return std::string("could not create ") + tmp + ": " + std::strerror(errno);
  errno = 0;
  const bool wrote = std::fwrite(text.data(), 1, text.size(), f) == text.size() && std::fflush(f) == 0;
  const int write_errno = errno;
  const bool closed = std::fclose(f) == 0;
  if (wrote && closed) return "";
  const int why = write_errno ? write_errno : errno;
  std::remove(tmp.c_str());
  return std::strerror(why ? why : EIO);
}

}  // namespace

void write_json(const std::string& path, const nlohmann::json& j, bool replace) {
  const std::string tmp = path + ".partial-" + std::to_string(::getpid());
  // one line: committed results stay small (read them with jq or python3 -m json.tool)
  const std::string why = write_new_file(tmp, j.dump() + "\n");
  if (!why.empty()) throw std::runtime_error("writing result file " + path + " failed: " + why);
  if (replace) {
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);
    if (ec) {
      std::filesystem::remove(tmp, ec);
      throw std::runtime_error("cannot write result file " + path + ": " + ec.message());
    }
    return;
  }
  // No-replace: link() fails with EEXIST where another process wrote `path` since check_result_path looked, so
  // of two runs given one --json only the first says "result written"; the other keeps its own under a new name.
  if (::link(tmp.c_str(), path.c_str()) == 0) {
    ::unlink(tmp.c_str());
    return;
  }
  const int err = errno;
  if (err == EEXIST) {
    const std::string kept = path + ".pid" + std::to_string(::getpid()) + ".json";
    if (std::rename(tmp.c_str(), kept.c_str()) == 0)
      throw std::runtime_error("result file " + path + " appeared meanwhile (another run wrote it); not replaced: "
                               "this run's result is in " + kept);
    std::remove(tmp.c_str());
    throw std::runtime_error("result file " + path + " appeared meanwhile (another run wrote it); not replaced, "
                             "and this run's result could not be kept either");
  }
  std::remove(tmp.c_str());
  throw std::runtime_error("cannot write result file " + path + ": " + std::strerror(err));
}

void check_result_path(const std::string& path, bool overwrite) {
  namespace fs = std::filesystem;
  if (path.empty()) return;
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw std::runtime_error("--json " + path + " is a folder; name a file");
  if (fs::exists(path, ec) && !overwrite)
    throw std::runtime_error("--json " + path + " exists; nsbench does not overwrite a result (give --force to)");
  const fs::path folder = fs::path(path).parent_path().empty() ? fs::path(".") : fs::path(path).parent_path();
  if (!fs::is_directory(folder, ec)) throw std::runtime_error("--json " + path + ": no folder " + folder.string());
  const std::string probe = path + ".probe-" + std::to_string(::getpid());
  if (!std::ofstream(probe)) throw std::runtime_error("--json " + path + ": cannot create files in " + folder.string());
  fs::remove(probe, ec);
}

nlohmann::json bounded_samples(const std::vector<double>& samples, nlohmann::json* kept) {
  if (samples.size() <= kMaxRawSamples) return samples;
  const std::size_t stride = (samples.size() + kMaxRawSamples - 1) / kMaxRawSamples;
  std::vector<double> sub;
  for (std::size_t i = 0; i < samples.size(); i += stride) sub.push_back(samples[i]);
  if (kept) *kept = {{"kept", sub.size()}, {"of", samples.size()}, {"stride", stride}};
  return sub;
}

std::string now_utc() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

nlohmann::json machine_metadata(int threads_used) {
  const int threads = threads_used > 0 ? threads_used : omp_get_max_threads();
  // The CPU's own limit, one core and the threads used and all of them, so that a CPU time and a
  // speedup over it can be judged against the CPU's bandwidth (cpu_bandwidth: measured once a day, then cached).
  const nlohmann::json bandwidth = cpu_bandwidth({threads, omp_get_num_procs()});
  nlohmann::json m = {{"cpu", {{"model", cpu_model()}, {"logical_cores", std::thread::hardware_concurrency()},
                               {"threads_used", threads_used}, {"omp_max_threads", omp_get_max_threads()},
                               {"llc_bytes", last_level_cache_bytes()}, {"reference_isa", cpu_reference_isa()},
                               {"binding", cpu_thread_binding()}, {"bandwidth", bandwidth}}}};
  m["hostname"] = kernel_hostname();  // rank 0's; every rank's host is in run.decomposition.slabs
  if (device::count() > 0) {
    const device::Properties p = device::properties(0);
    m["gpu"] = {{"name", p.name},
                {"count", device::count()},
                {"sm_count", p.sm_count},
                {"compute_capability", std::to_string(p.cc_major) + "." + std::to_string(p.cc_minor)},
                {"memory_bytes", p.memory_bytes},
                {"l2_bytes", p.l2_bytes},
                {"sm_clock_khz", p.clock_khz},
                {"memory_clock_khz", p.memory_clock_khz},
                {"bus_width_bits", p.bus_width_bits},
                {"driver_version", p.driver_version},
                {"runtime_version", p.runtime_version},
                {"pci_bus_id", p.pci_bus_id}};
  } else {
    m["gpu"] = nullptr;
    m["gpu_absent_reason"] = device::unavailable_reason();
  }
  return m;
}

nlohmann::json build_metadata() {
  return {{"git_commit", kGitCommit},       {"git_dirty", kGitDirty},         {"compiler", kCompiler},
          {"cxx_flags", kCxxFlags},         {"cuda_compiler", kCudaCompiler}, {"cuda_flags", kCudaFlags},
          {"cuda_architectures", kCudaArchitectures}, {"build_type", kBuildType},
          {"with_cuda", device::built_with_cuda()}};
}

}  // namespace nsb
