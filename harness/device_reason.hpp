// Why there is no usable GPU, in words that fit the machine (plain C++: every build has it; device_cuda.cu's
// unavailable_reason() is made of it).
#pragma once

#include <string>

namespace nsb::device {

// The reason from the CUDA runtime's error (empty: it found no device without an error) and whether an NVIDIA
// driver is loaded at all: without one the runtime says "CUDA driver version is insufficient", which would send a
// user after a driver upgrade on a machine that has no GPU. Never starts "no usable GPU" (the callers' own words).
std::string no_gpu_reason(const std::string& runtime_error, bool driver_loaded);
bool nvidia_driver_loaded();  // /proc/driver/nvidia or /dev/nvidiactl exists

}  // namespace nsb::device
