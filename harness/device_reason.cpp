// Why there is no GPU, in words that fit a machine without one (plain C++: every build has it).
#include <filesystem>

#include "device_reason.hpp"

namespace nsb::device {

bool nvidia_driver_loaded() {
  std::error_code ec;
  return std::filesystem::exists("/proc/driver/nvidia", ec) || std::filesystem::exists("/dev/nvidiactl", ec);
}

std::string no_gpu_reason(const std::string& runtime_error, bool driver_loaded) {
  if (!driver_loaded)
    return "no NVIDIA GPU found (no NVIDIA driver loaded" +
           (runtime_error.empty() ? std::string(")") : "; the CUDA runtime says: " + runtime_error + ")");
  if (runtime_error.empty()) return "no NVIDIA GPU found (the driver is loaded and lists none)";
  return "the NVIDIA driver is loaded but the CUDA runtime cannot use it: " + runtime_error;
}

}  // namespace nsb::device
