// The profiling passes on CUPTI (harness/profile.hpp says what each measures and why it runs apart
// from the timing).
#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <stdexcept>

#include "profile.hpp"

namespace nsb::profile {
namespace {

std::string cupti_message(CUptiResult r) {
  const char* s = nullptr;
  cuptiGetResultString(r, &s);
  return s ? s : "CUPTI error " + std::to_string(int(r));
}
void check(CUptiResult r, const char* what) {
  if (r != CUPTI_SUCCESS) throw std::runtime_error(std::string(what) + ": " + cupti_message(r));
}
// A CUPTI parameter struct: zeroed, with its size set (CUPTI's versioning convention).
template <class P>
P params(std::size_t struct_size) {
  P p{};
  p.structSize = struct_size;
  return p;
}
#define NSB_CUPTI_PARAMS(Type) params<Type>(Type##_STRUCT_SIZE)
void check_cuda(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

// The runtime's current context, through the driver entry point the runtime hands out: linking
// libcuda itself would keep nsbench from starting on machines without a GPU driver.
CUcontext current_context() {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult found{};
  check_cuda(cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &fn, 12000, cudaEnableDefault, &found),
             "cudaGetDriverEntryPointByVersion(cuCtxGetCurrent)");
  CUcontext ctx = nullptr;
  if (found != cudaDriverEntryPointSuccess || !fn || reinterpret_cast<CUresult (*)(CUcontext*)>(fn)(&ctx) != CUDA_SUCCESS || !ctx)
    throw std::runtime_error("no current CUDA context");
  return ctx;
}

// ---- trace pass: the Activity API ---------------------------------------------------------------

// CUPTI hands filled activity buffers to a callback on its own thread.
std::mutex g_buffers_mutex;
std::vector<std::pair<uint8_t*, size_t>> g_buffers;

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *size = std::size_t(8) << 20;
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(ACTIVITY_RECORD_ALIGNMENT, *size));
  *max_records = 0;  // as many as fit
}
void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  std::lock_guard<std::mutex> lock(g_buffers_mutex);
  g_buffers.emplace_back(buffer, valid);
}

constexpr CUpti_ExternalCorrelationKind kSectionKind = CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0;
const CUpti_ActivityKind kTraceKinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_RUNTIME,
                                          CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION};

// Every kernel launched between begin(section) and end(section) carries the section call's serial
// number as its external correlation id; finish() joins kernel records to those ids.
class CuptiTrace final : public TracePass {
 public:
  CuptiTrace() {
    static bool registered = false;
    if (!registered) {
      check(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed), "cuptiActivityRegisterCallbacks");
      registered = true;
    }
    for (CUpti_ActivityKind k : kTraceKinds) check(cuptiActivityEnable(k), "cuptiActivityEnable");
    active_ = true;
  }
  ~CuptiTrace() override { stop(); }

  void begin(int section) override {
    if (!enabled || section == kStepSection) return;
    calls_.push_back({section, step_});
    check(cuptiActivityPushExternalCorrelationId(kSectionKind, calls_.size()), "cuptiActivityPushExternalCorrelationId");
  }
  void end(int section) override {
    if (!enabled || section == kStepSection) return;
    uint64_t id = 0;
    check(cuptiActivityPopExternalCorrelationId(kSectionKind, &id), "cuptiActivityPopExternalCorrelationId");
  }

  std::vector<KernelRecord> finish() override {
    check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    check(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), "cuptiActivityFlushAll");
    stop();
    std::vector<std::pair<uint8_t*, size_t>> buffers;
    {
      std::lock_guard<std::mutex> lock(g_buffers_mutex);
      buffers.swap(g_buffers);
    }
    std::map<uint32_t, uint64_t> external;  // CUPTI correlation id -> section call serial
    std::vector<KernelRecord> kernels;
    std::vector<uint32_t> kernel_correlation;
    for (auto& [buf, valid] : buffers) {
      CUpti_Activity* rec = nullptr;
      while (cuptiActivityGetNextRecord(buf, valid, &rec) == CUPTI_SUCCESS) {
        if (rec->kind == CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION) {
          const auto* e = reinterpret_cast<const CUpti_ActivityExternalCorrelation*>(rec);
          if (e->externalKind == kSectionKind) external[e->correlationId] = e->externalId;
        } else if (rec->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL || rec->kind == CUPTI_ACTIVITY_KIND_KERNEL) {
          const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(rec);
          KernelRecord r;
          r.name = k->name ? k->name : "?";
          r.grid[0] = k->gridX, r.grid[1] = k->gridY, r.grid[2] = k->gridZ;
          r.block[0] = k->blockX, r.block[1] = k->blockY, r.block[2] = k->blockZ;
          r.registers = k->registersPerThread;
          r.static_shared = k->staticSharedMemory, r.dynamic_shared = k->dynamicSharedMemory;
          r.seconds = double(k->end - k->start) * 1e-9;
          kernels.push_back(r);
          kernel_correlation.push_back(k->correlationId);
        }
      }
      std::free(buf);
    }
    for (std::size_t i = 0; i < kernels.size(); ++i) {
      const auto it = external.find(kernel_correlation[i]);
      if (it == external.end() || it->second < 1 || it->second > calls_.size()) continue;  // stays "outside"
      const auto& [section, step] = calls_[it->second - 1];
      kernels[i].section = section, kernels[i].step = step, kernels[i].call = (long long)it->second;
    }
    return kernels;
  }

 private:
  void stop() {
    if (!active_) return;
    for (CUpti_ActivityKind k : kTraceKinds) cuptiActivityDisable(k);
    active_ = false;
  }
  bool active_ = false;
  std::vector<std::pair<int, int>> calls_;  // (section, step) of call serial i+1
};

// ---- counter pass: the Range Profiler ------------------------------------------------------------

constexpr std::size_t kMaxRanges = 64;  // kernels one section call may launch

class CuptiCounters final : public CounterPass {
 public:
  explicit CuptiCounters(int device) {
    check_cuda(cudaSetDevice(device), "cudaSetDevice");
    check_cuda(cudaFree(nullptr), "cudaFree(0) (context creation)");
    const CUcontext ctx = current_context();

    auto init = NSB_CUPTI_PARAMS(CUpti_Profiler_Initialize_Params);
    check(cuptiProfilerInitialize(&init), "cuptiProfilerInitialize");
    initialized_ = true;

    auto chip = NSB_CUPTI_PARAMS(CUpti_Device_GetChipName_Params);
    chip.deviceIndex = std::size_t(device);
    check(cuptiDeviceGetChipName(&chip), "cuptiDeviceGetChipName");

    auto avail = NSB_CUPTI_PARAMS(CUpti_Profiler_GetCounterAvailability_Params);
    avail.ctx = ctx;
    check(cuptiProfilerGetCounterAvailability(&avail), "cuptiProfilerGetCounterAvailability (size)");
    availability_.resize(avail.counterAvailabilityImageSize);
    avail.pCounterAvailabilityImage = availability_.data();
    check(cuptiProfilerGetCounterAvailability(&avail), "cuptiProfilerGetCounterAvailability");

    auto enable = NSB_CUPTI_PARAMS(CUpti_RangeProfiler_Enable_Params);
    enable.ctx = ctx;
    check(cuptiRangeProfilerEnable(&enable), "cuptiRangeProfilerEnable");
    object_ = enable.pRangeProfilerObject;

    auto host = NSB_CUPTI_PARAMS(CUpti_Profiler_Host_Initialize_Params);
    host.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    host.pChipName = chip.pChipName;
    host.pCounterAvailabilityImage = availability_.data();
    check(cuptiProfilerHostInitialize(&host), "cuptiProfilerHostInitialize");
    host_ = host.pHostObject;

    // One metric at a time, so that a name this chip or CUPTI does not know costs that metric alone
    // (the report then shows what the others measured) rather than the whole pass.
    for (const std::string& m : counter_metrics()) {
      const char* name = m.c_str();
      auto add = NSB_CUPTI_PARAMS(CUpti_Profiler_Host_ConfigAddMetrics_Params);
      add.pHostObject = host_;
      add.ppMetricNames = &name;
      add.numMetrics = 1;
      if (const CUptiResult r = cuptiProfilerHostConfigAddMetrics(&add); r == CUPTI_SUCCESS) names_.push_back(name);
      else std::fprintf(stderr, "nsbench: counter %s not collected: %s\n", name, cupti_message(r).c_str());
    }
    if (names_.empty()) throw std::runtime_error("CUPTI accepted none of the counter metrics");
    auto size = NSB_CUPTI_PARAMS(CUpti_Profiler_Host_GetConfigImageSize_Params);
    size.pHostObject = host_;
    check(cuptiProfilerHostGetConfigImageSize(&size), "cuptiProfilerHostGetConfigImageSize");
    config_.resize(size.configImageSize);
    auto image = NSB_CUPTI_PARAMS(CUpti_Profiler_Host_GetConfigImage_Params);
    image.pHostObject = host_;
    image.configImageSize = config_.size();
    image.pConfigImage = config_.data();
    check(cuptiProfilerHostGetConfigImage(&image), "cuptiProfilerHostGetConfigImage");

    auto data = NSB_CUPTI_PARAMS(CUpti_RangeProfiler_GetCounterDataSize_Params);
    data.pRangeProfilerObject = object_;
    data.pMetricNames = names_.data();
    data.numMetrics = names_.size();
    data.maxNumOfRanges = kMaxRanges;
    data.maxNumRangeTreeNodes = kMaxRanges;
    check(cuptiRangeProfilerGetCounterDataSize(&data), "cuptiRangeProfilerGetCounterDataSize");
    counter_data_.resize(data.counterDataSize);
  }
  ~CuptiCounters() override {
    if (host_) {
      auto p = NSB_CUPTI_PARAMS(CUpti_Profiler_Host_Deinitialize_Params);
      p.pHostObject = host_;
      cuptiProfilerHostDeinitialize(&p);
    }
    if (object_) {
      auto p = NSB_CUPTI_PARAMS(CUpti_RangeProfiler_Disable_Params);
      p.pRangeProfilerObject = object_;
      cuptiRangeProfilerDisable(&p);
    }
    if (initialized_) {
      auto p = NSB_CUPTI_PARAMS(CUpti_Profiler_DeInitialize_Params);
      cuptiProfilerDeInitialize(&p);
    }
  }

  // A fresh counter image and configuration per section call: its ranges are exactly its kernels.
  void begin(int section) override {
    if (!enabled || section == kStepSection) return;
    auto init = NSB_CUPTI_PARAMS(CUpti_RangeProfiler_CounterDataImage_Initialize_Params);
    init.pRangeProfilerObject = object_;
    init.counterDataSize = counter_data_.size();
    init.pCounterData = counter_data_.data();
    check(cuptiRangeProfilerCounterDataImageInitialize(&init), "cuptiRangeProfilerCounterDataImageInitialize");
    auto cfg = NSB_CUPTI_PARAMS(CUpti_RangeProfiler_SetConfig_Params);
    cfg.pRangeProfilerObject = object_;
    cfg.configSize = config_.size();
    cfg.pConfig = config_.data();
    cfg.counterDataImageSize = counter_data_.size();
    cfg.pCounterDataImage = counter_data_.data();
    cfg.range = CUPTI_AutoRange;
    cfg.replayMode = CUPTI_KernelReplay;
    cfg.maxRangesPerPass = kMaxRanges;
    cfg.numNestingLevels = 1;
    cfg.minNestingLevel = 1;
    cfg.passIndex = 0;
    cfg.targetNestingLevel = 1;
    check(cuptiRangeProfilerSetConfig(&cfg), "cuptiRangeProfilerSetConfig");
    auto start = NSB_CUPTI_PARAMS(CUpti_RangeProfiler_Start_Params);
    start.pRangeProfilerObject = object_;
    check(cuptiRangeProfilerStart(&start), "cuptiRangeProfilerStart");
    open_section_ = section;
  }

  void end(int section) override {
    if (!enabled || section == kStepSection) return;
    check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    auto stop = NSB_CUPTI_PARAMS(CUpti_RangeProfiler_Stop_Params);
    stop.pRangeProfilerObject = object_;
    check(cuptiRangeProfilerStop(&stop), "cuptiRangeProfilerStop");
    auto decode = NSB_CUPTI_PARAMS(CUpti_RangeProfiler_DecodeData_Params);
    decode.pRangeProfilerObject = object_;
    check(cuptiRangeProfilerDecodeData(&decode), "cuptiRangeProfilerDecodeData");

    auto info = NSB_CUPTI_PARAMS(CUpti_RangeProfiler_GetCounterDataInfo_Params);
    info.pCounterDataImage = counter_data_.data();
    info.counterDataImageSize = counter_data_.size();
    check(cuptiRangeProfilerGetCounterDataInfo(&info), "cuptiRangeProfilerGetCounterDataInfo");

    CounterRecord rec;
    rec.section = open_section_, rec.step = step_;
    rec.kernels = int(info.numTotalRanges);
    std::vector<double> values(names_.size());
    double weighted_time = 0;
    std::map<std::string, double> weighted;  // ratio metrics x kernel time
    for (std::size_t r = 0; r < info.numTotalRanges; ++r) {
      auto eval = NSB_CUPTI_PARAMS(CUpti_Profiler_Host_EvaluateToGpuValues_Params);
      eval.pHostObject = host_;
      eval.pCounterDataImage = counter_data_.data();
      eval.counterDataImageSize = counter_data_.size();
      eval.rangeIndex = r;
      eval.ppMetricNames = names_.data();
      eval.numMetrics = names_.size();
      eval.pMetricValues = values.data();
      check(cuptiProfilerHostEvaluateToGpuValues(&eval), "cuptiProfilerHostEvaluateToGpuValues");
      double t = 0;
      for (std::size_t m = 0; m < names_.size(); ++m)
        if (std::string(names_[m]) == "gpu__time_duration.sum") t = values[m];
      weighted_time += t;
      for (std::size_t m = 0; m < names_.size(); ++m) {
        const std::string n = names_[m];
        if (n.ends_with(".sum")) rec.metrics[n] += values[m];
        else weighted[n] += values[m] * t;
      }
    }
    for (auto& [n, v] : weighted) rec.metrics[n] = weighted_time > 0 ? v / weighted_time : 0;
    records_.push_back(rec);
  }

  std::vector<CounterRecord> finish() override { return records_; }

 private:
  bool initialized_ = false;
  CUpti_RangeProfiler_Object* object_ = nullptr;
  CUpti_Profiler_Host_Object* host_ = nullptr;
  std::vector<uint8_t> availability_, config_, counter_data_;
  std::vector<const char*> names_;
  int open_section_ = -1;
  std::vector<CounterRecord> records_;
};

}  // namespace

std::unique_ptr<TracePass> make_trace_pass(std::string* why) {
  try {
    return std::make_unique<CuptiTrace>();
  } catch (const std::exception& e) {
    *why = e.what();
    return nullptr;
  }
}

std::unique_ptr<CounterPass> make_counter_pass(int device, std::string* why) {
  try {
    return std::make_unique<CuptiCounters>(device);
  } catch (const std::exception& e) {
    *why = e.what();
    return nullptr;
  }
}

}  // namespace nsb::profile
