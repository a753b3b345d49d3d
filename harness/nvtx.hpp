// NVTX ranges in the "nsbench" domain. Free when no tool is attached (NVTX's own design); compiled
// out where the NVTX headers are absent.
#pragma once

#if defined(NSB_HAVE_NVTX)
#include <nvtx3/nvToolsExt.h>
#endif

namespace nsb {

class NvtxRange {
 public:
  explicit NvtxRange(const char* name) {
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
    nvtxDomainRangePop(domain());
#endif
  }
  NvtxRange(const NvtxRange&) = delete;
  NvtxRange& operator=(const NvtxRange&) = delete;

 private:
#if defined(NSB_HAVE_NVTX)
  static nvtxDomainHandle_t domain() {
    static nvtxDomainHandle_t d = nvtxDomainCreateA("nsbench");
    return d;
  }
#endif
};

}  // namespace nsb
