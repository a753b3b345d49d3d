// The CPU's memory bandwidth, measured STREAM-style (McCalpin's copy and triad), so that every CPU
// stage can say how close it runs to its own limit, as every GPU stage does of the GPU's copy
// bandwidth. Arrays are at least 4x the last-level cache, first-touched by the OpenMP threads that
// then stream them (schedule(static) both times), timed several times: median and spread.
#pragma once

#include <cstddef>
#include <vector>

#include <nlohmann/json.hpp>

namespace nsb {

// The last-level cache of the whole CPU: the largest data or unified cache sysfs reports for cpu0
// (/sys/devices/system/cpu/cpu0/cache) times its instances (CPUs / CPUs sharing one); 0 where sysfs
// says nothing.
std::size_t last_level_cache_bytes();

// Copy (c = a) and triad (a = b + s*c) on `threads` OpenMP threads: {threads, array_bytes, copy {...},
// triad {...}}, each kernel with bytes_per_pass (STREAM's count: no write-allocate
// traffic), median/q1/q3/min/max seconds and bytes_per_second of the median.
nlohmann::json measure_cpu_stream(int threads, int repetitions);

// The CPU's FP64 rate on `threads` OpenMP threads: each thread runs independent multiply-add chains of
// the widest vector this build has (fused where it enables FMA), in registers, so no memory is touched:
// {instruction, doubles_a_vector, chains, flops_per_pass, median/q1/q3/min/max seconds, flops_per_second
// of the median}. About 5-15 ms a pass.
nlohmann::json measure_cpu_fp64(int threads, int repetitions);

// The machine block's `cpu.bandwidth`: one core and every thread count in `thread_counts`, each row
// with its FP64 rate beside the bandwidth (`fp64`), each measured once a day per host, thread count and
// binding (a cache file, cpu_bandwidth.cpp says why; the first measurement pays 1-3 s, later processes
// read it) and once per process at the most.
nlohmann::json cpu_bandwidth(const std::vector<int>& thread_counts);

// Where neither OMP_PROC_BIND nor OMP_PLACES is set, restarts this process (argv as given) with
// OMP_PROC_BIND=close and OMP_PLACES=cores, so a CPU benchmark's threads stay on their cores and
// their first-touched pages; cpu_thread_binding records that nsbench set them. Single-process
// commands only: ranks of the threads driver or of MPI would all inherit the first core's binding.
void pin_threads_unless_told(char** argv);

// How the OpenMP runtime binds threads, as it sees it: proc_bind, its places, and OMP_PROC_BIND /
// OMP_PLACES as the environment gave them (null where unset) and who set them.
nlohmann::json cpu_thread_binding();

// The instruction set the CPU reference was compiled for (NSB_CPU_NATIVE) and the SIMD extensions
// the compiler enabled in it.
nlohmann::json cpu_reference_isa();

// The triad (or copy) bandwidth measured on `threads` threads; NaN where it was not measured.
double cpu_stream_bytes_per_second(const nlohmann::json& bandwidth, const char* kernel, int threads);

}  // namespace nsb
