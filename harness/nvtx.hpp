// NVTX ranges in the "nsbench" domain. Free when no tool is attached (NVTX's own design); compiled
// out where the NVTX headers are absent. nvtx_enabled() = false skips the calls at run time, so that
// the cost of the ranges can be measured (nsbench run --nvtx off vs on).
#pragma once

#if defined(NSB_HAVE_NVTX)
#include <nvtx3/nvToolsExt.h>
#endif

namespace nsb {

inline bool& nvtx_enabled() {
  static bool on = true;
  return on;
}

class NvtxRange {
 public:
  explicit NvtxRange(const char* name) : pushed_(nvtx_enabled()) {
    if (!pushed_) return;
#if defined(NSB_HAVE_NVTX)
    nvtxEventAttributes_t a{};
    a.version = NVTX_VERSION;
    a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    a.messageType = NVTX_MESSAGE_TYPE_ASCII;
    a.message.ascii = name;
    nvtxDomainRangePushEx(domain(), &a);
#else
    (void)name;
#endif
  }
  ~NvtxRange() {
#if defined(NSB_HAVE_NVTX)
    if (pushed_) nvtxDomainRangePop(domain());
#endif
  }
  NvtxRange(const NvtxRange&) = delete;
  NvtxRange& operator=(const NvtxRange&) = delete;

 private:
  bool pushed_;
#if defined(NSB_HAVE_NVTX)
  static nvtxDomainHandle_t domain() {
    static nvtxDomainHandle_t d = nvtxDomainCreateA("nsbench");
    return d;
  }
#endif
};

}  // namespace nsb
