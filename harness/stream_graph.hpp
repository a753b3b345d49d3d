// A piece of stream work replayed as a CUDA graph inside a method (multigrid's cycle): many short
// launches become one, which matters where each kernel is shorter than its launch (coarse levels).
//
// The graph is captured at the work's first run and again whenever its key changes: the key holds
// what the launches bake in (the stream, the arrays' addresses, sizes, faces), so a replay is never
// stale. Plain launches instead where no graph can be captured: a CPU backend, the legacy default
// stream (it cannot be captured), or a stream that is already being captured: an enclosing capture
// (the run's --launch graph) cannot nest another, and takes the plain launches into its own graph.
#pragma once

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "device.hpp"

namespace nsb {

enum class GraphStep { plain, capture, replay };

// What a run of the work does, from where it stands (the logic, apart from the device, for tests).
inline GraphStep graph_step(bool gpu, bool has_stream, bool stream_capturing, bool have_graph, bool same_key) {
  if (!gpu || !has_stream || stream_capturing) return GraphStep::plain;
  return have_graph && same_key ? GraphStep::replay : GraphStep::capture;
}

class StreamGraph {
 public:
  using Key = std::vector<std::uintptr_t>;

  // Runs work() on `stream` as graph_step says (capture: record it, then launch the graph; replay:
  // launch the graph, work() not called). Returns the step taken.
  template <class Work>
  GraphStep run(bool gpu, void* stream, Key key, Work&& work) {
    const bool has_stream = stream != nullptr;
    const GraphStep step = graph_step(gpu, has_stream, gpu && has_stream && device::stream_capturing(stream), exec_ != nullptr,
                                      key == key_);
    if (step == GraphStep::plain) {
      work();
      return step;
    }
    if (step == GraphStep::capture) {
      exec_.reset();
      device::capture_begin(stream);
      try {
        work();
      } catch (...) {  // end the capture so the stream is usable, drop the partial graph
        try {
          device::graph_destroy(device::capture_end(stream));
        } catch (...) {
        }
        throw;
      }
      exec_.reset(device::capture_end(stream));
      key_ = std::move(key);
    }
    device::graph_launch(exec_.get(), stream);
    return step;
  }

 private:
  std::unique_ptr<void, void (*)(void*)> exec_{nullptr, device::graph_destroy};
  Key key_;
};

}  // namespace nsb
