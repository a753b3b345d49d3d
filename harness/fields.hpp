// Fields by name. A solver's FieldSet allocates every array it names (on the host or the current GPU,
// in its precision) and hands out plain pointers for the kernels' views; tools address fields by the
// names the stage kinds declare (reads / writes), never by position.
#pragma once

#include <algorithm>
#include <cstddef>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "device.hpp"

namespace nsb {

// Array storage on the host or on the current GPU.
template <class T>
class Buffer {
 public:
  Buffer() = default;
  Buffer(std::size_t n, bool on_device, const char* what) : n_(n), on_device_(on_device) {
    if (on_device) ptr_ = static_cast<T*>(device::alloc(n * sizeof(T), what));
    else host_.assign(n, T(0)), ptr_ = host_.data();
  }
  ~Buffer() {
    if (on_device_) device::free(ptr_);
  }
  Buffer(Buffer&& o) noexcept { *this = std::move(o); }
  Buffer& operator=(Buffer&& o) noexcept {
    std::swap(n_, o.n_), std::swap(on_device_, o.on_device_), std::swap(ptr_, o.ptr_), std::swap(host_, o.host_);
    if (!on_device_) ptr_ = host_.empty() ? nullptr : host_.data();
    if (!o.on_device_) o.ptr_ = o.host_.empty() ? nullptr : o.host_.data();
    return *this;
  }
  T* get() const { return ptr_; }
  std::size_t size() const { return n_; }
  bool on_device() const { return on_device_; }
  void upload(const std::vector<T>& h) {
    if (h.size() != n_) throw std::logic_error("Buffer::upload: size mismatch");
    if (on_device_) device::copy_to_device(ptr_, h.data(), n_ * sizeof(T));
    else std::copy(h.begin(), h.end(), host_.begin());
  }
  // Every value zero (a field the loaded state does not set): on the GPU a memset, no host array of zeros
  // made and uploaded (on a large grid that is GBs of fresh host pages and a transfer a field).
  void zero() {
    if (on_device_) {
      device::fill_bytes(ptr_, 0, n_ * sizeof(T), nullptr);
      device::stream_sync(nullptr);  // as copy_to_device: the solvers' streams do not wait for the legacy stream
    } else {
      std::fill(host_.begin(), host_.end(), T(0));
    }
  }
  std::vector<T> download() const {
    if (!on_device_) return host_;
    std::vector<T> h(n_);
    device::copy_to_host(h.data(), ptr_, n_ * sizeof(T));
    return h;
  }

 private:
  std::size_t n_ = 0;
  bool on_device_ = false;
  T* ptr_ = nullptr;
  std::vector<T> host_;
};

// n random values in +-[0.5, 1.5] from a seed, written to out: never zero, mixed signs (what verify feeds every
// variant).
template <class T>
void fill_random(T* out, std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> mag(0.5, 1.5);
  for (std::size_t i = 0; i < n; ++i) out[i] = T((rng() & 1 ? 1 : -1) * mag(rng));
}

// Each host array out[i] (n values) filled as fill_random(out[i], n, seed + i), the arrays in parallel. In
// fields.cpp, which is built with OpenMP: the CUDA translation units that include this header are not.
void fill_random_arrays(const std::vector<float*>& out, std::size_t n, unsigned seed);
void fill_random_arrays(const std::vector<double*>& out, std::size_t n, unsigned seed);

template <class T>
std::vector<T> random_values(std::size_t n, unsigned seed) {
  std::vector<T> v(n);
  fill_random(v.data(), n, seed);
  return v;
}

template <class T>
class FieldSet {
 public:
  // Every field holds `points` values (a grid's padded_points()) on the current GPU or on the host.
  FieldSet(std::size_t points, bool on_device) : points_(points), on_device_(on_device) {}
  FieldSet(const FieldSet&) = delete;
  FieldSet& operator=(const FieldSet&) = delete;

  T* add(const std::string& name) {
    if (has(name)) throw std::logic_error("field '" + name + "' allocated twice");
    fields_.emplace_back(name, Buffer<T>(points_, on_device_, name.c_str()));
    return fields_.back().second.get();
  }
  bool has(const std::string& name) const {
    return std::any_of(fields_.begin(), fields_.end(), [&](const auto& f) { return f.first == name; });
  }
  T* operator[](const std::string& name) const { return buffer(name).get(); }
  const Buffer<T>& buffer(const std::string& name) const {
    for (const auto& f : fields_)
      if (f.first == name) return f.second;
    std::string known;
    for (const auto& f : fields_) known += " " + f.first;
    throw std::logic_error("no field '" + name + "'; this field set has:" + known);
  }
  void upload(const std::string& name, const std::vector<T>& values) {
    for (auto& f : fields_)
      if (f.first == name) return f.second.upload(values);
    buffer(name);  // throws, naming the fields there are
  }
  void zero(const std::string& name) {
    for (auto& f : fields_)
      if (f.first == name) return f.second.zero();
    buffer(name);  // throws, naming the fields there are
  }
  // The field that owns pointer p (solvers swap pointers between time levels; the name follows).
  const std::string& name_of(const T* p) const {
    for (const auto& f : fields_)
      if (f.second.get() == p) return f.first;
    throw std::logic_error("a pointer that is no field of this set");
  }
  const Buffer<T>& buffer_of(const T* p) const { return buffer(name_of(p)); }
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& f : fields_) out.push_back(f.first);
    return out;
  }
  std::vector<T*> pointers() const {
    std::vector<T*> out;
    for (const auto& f : fields_) out.push_back(f.second.get());
    return out;
  }
  std::size_t points() const { return points_; }
  bool on_device() const { return on_device_; }
  // verify's inputs: field i gets random_values(seed + i) whatever the backend, so a CPU and a GPU set
  // of one seed hold the same values.
  // Host fields are filled in place and in parallel, each from its own seed (the values do not depend on the
  // threads; the pages were first touched when allocated): filling them one by one was most of a CPU stage
  // benchmark's time (studies/targets/cpu_stage_shares.yaml says how much).
  void fill_random_host(unsigned seed) {
    if (on_device_) {
      for (std::size_t i = 0; i < fields_.size(); ++i) fields_[i].second.upload(random_values<T>(points_, seed + unsigned(i)));
      return;
    }
    fill_random_arrays(pointers(), points_, seed);
  }
  // The benchmarks' inputs: filled on the device (fast for 512^3 grids), field i from seed + i.
  void fill_random_device(unsigned long long seed, void* stream) {
    for (std::size_t i = 0; i < fields_.size(); ++i)
      device::fill_random(fields_[i].second.get(), points_, sizeof(T), seed + i, stream);
  }

 private:
  std::size_t points_;
  bool on_device_;
  std::vector<std::pair<std::string, Buffer<T>>> fields_;
};

}  // namespace nsb
