// NCCL collectives captured into graphs (backend/collective.hpp).

#include "seam.hpp"

#include <cgraph/runtime/backend/collective.hpp>
#include <cgraph/runtime/backend/device.hpp>

#include <fmt/format.h>

#if CGRAPH_HAVE_NCCL
#include <nccl.h>
#endif

#include <algorithm>
#include <utility>
#include <vector>

namespace cgraph::backend {

#if !CGRAPH_HAVE_NCCL

bool have_nccl() noexcept { return false; }

graph_handle capture_collectives(list<collective_call>, cudaStreamCaptureMode, const site& at) {
  throw build_error(at.str(), "this build of cgraph has no NCCL, which collectives need: install NCCL (or give its "
                              "folder as NCCL_ROOT) and configure cgraph again");
}

#else

bool have_nccl() noexcept { return true; }

namespace {

// A failed NCCL call: a build_error at the node, with NCCL's own words. Fault injection covers
// the CUDA calls around NCCL's (streams, events, scratch, the capture), not NCCL's own: a
// faked NCCL failure inside a group would leave NCCL's state unlike any real one.
void check_nccl(ncclResult_t r, std::string_view call, ncclComm_t comm, const site& at) {
  if (r == ncclSuccess) return;
  const char* last = comm ? ncclGetLastError(comm) : nullptr;
  throw build_error(at.str(), fmt::format("{} failed: {}{}", call.substr(0, call.find('(')), ncclGetErrorString(r),
                                          last && *last ? fmt::format(" ({})", last) : std::string()));
}
#define CGRAPH_NCCL(call, comm, at) check_nccl((call), #call, (comm), (at))

ncclDataType_t nccl_type(ir::scalar s) {
  switch (s) {
    case ir::scalar::i8: return ncclInt8;
    case ir::scalar::u8: return ncclUint8;
    case ir::scalar::i32: return ncclInt32;
    case ir::scalar::u32: return ncclUint32;
    case ir::scalar::i64: return ncclInt64;
    case ir::scalar::u64: return ncclUint64;
    case ir::scalar::f16: return ncclFloat16;
    case ir::scalar::bf16: return ncclBfloat16;
    case ir::scalar::f32: return ncclFloat32;
    case ir::scalar::f64: return ncclFloat64;
    default: return ncclNumTypes;  // refused when compiling (i16, u16, bool)
  }
}

// Where each call runs: its communicator's device, and how many ranks it has.
struct placement {
  int device = 0;
  int ranks = 1;
};

std::vector<placement> place(list<collective_call> calls, const site& at) {
  std::vector<placement> out;
  out.reserve(calls.size());
  for (const collective_call& c : calls) {
    const site& here = c.at.source || *c.at.file ? c.at : at;
    if (!c.comm) throw build_error(here.str(), fmt::format("the communicator of '{}' is null", dsl::info(c.op).name));
    placement p;
    CGRAPH_NCCL(ncclCommCuDevice(c.comm, &p.device), c.comm, here);
    CGRAPH_NCCL(ncclCommCount(c.comm, &p.ranks), c.comm, here);
    if (c.device >= 0 && c.device != p.device)
      throw build_error(here.str(), fmt::format("'{}' is placed on device {}, but its communicator's device is {}",
                                                dsl::info(c.op).name, c.device, p.device));
    (void)device_count(here);  // a communicator of a device this process cannot see is NCCL's to refuse
    out.push_back(p);
  }
  return out;
}

// One non-blocking stream per device, made on first use and destroyed with this.
class device_streams {
public:
  device_streams() = default;
  device_streams(const device_streams&) = delete;
  device_streams& operator=(const device_streams&) = delete;
  ~device_streams() {
    for (auto& [device, s] : streams_) (void)cudaStreamDestroy(s);
  }
  cudaStream_t get(int device, const site& at) {
    for (auto& [d, s] : streams_)
      if (d == device) return s;
    device_scope on(device, at);
    cudaStream_t s = nullptr;
    CGRAPH_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), at);
    streams_.emplace_back(device, s);
    return s;
  }
  const std::vector<std::pair<int, cudaStream_t>>& all() const { return streams_; }

private:
  std::vector<std::pair<int, cudaStream_t>> streams_;
};

// Issues every call on its device's stream, grouped when there are several. `buffers(k)` gives
// call k's send and receive buffers and count (the user's, or the warm-up's scratch).
template <typename Buffers>
void issue_all(list<collective_call> calls, const std::vector<placement>& where, device_streams& streams, Buffers buffers,
               const site& at) {
  const bool group = calls.size() > 1;
  if (group) CGRAPH_NCCL(ncclGroupStart(), nullptr, at);
  try {
    for (std::size_t k = 0; k < calls.size(); ++k) {
      const collective_call& c = calls.data()[k];
      const site& here = c.at.source || *c.at.file ? c.at : at;
      auto [send, recv, count] = buffers(k);
      cudaStream_t s = streams.get(where[k].device, here);
      const ncclDataType_t t = nccl_type(c.element);
      const auto op = static_cast<ncclRedOp_t>(c.reduction);  // dsl::reduction is in NCCL's order
      switch (c.op) {
        case dsl::collective_op::all_reduce: CGRAPH_NCCL(ncclAllReduce(send, recv, count, t, op, c.comm, s), c.comm, here); break;
        case dsl::collective_op::all_gather: CGRAPH_NCCL(ncclAllGather(send, recv, count, t, c.comm, s), c.comm, here); break;
        case dsl::collective_op::reduce_scatter:
          CGRAPH_NCCL(ncclReduceScatter(send, recv, count, t, op, c.comm, s), c.comm, here);
          break;
        case dsl::collective_op::broadcast:
          CGRAPH_NCCL(ncclBroadcast(send, recv, count, t, c.peer, c.comm, s), c.comm, here);
          break;
        case dsl::collective_op::reduce: CGRAPH_NCCL(ncclReduce(send, recv, count, t, op, c.peer, c.comm, s), c.comm, here); break;
        case dsl::collective_op::send: CGRAPH_NCCL(ncclSend(send, count, t, c.peer, c.comm, s), c.comm, here); break;
        case dsl::collective_op::recv: CGRAPH_NCCL(ncclRecv(recv, count, t, c.peer, c.comm, s), c.comm, here); break;
      }
    }
  } catch (...) {
    if (group) (void)ncclGroupEnd();  // NCCL cleans up a group that failed at its end
    throw;
  }
  if (group) CGRAPH_NCCL(ncclGroupEnd(), nullptr, at);
}

struct buffers {
  const void* send;
  void* recv;
  std::size_t count;
};

// Every call once with one element on scratch buffers, outside any capture, so NCCL makes the
// connections they need now (it cannot while a stream captures). Scratch is ranks × 8 bytes
// each way: enough for all_gather's receive and reduce_scatter's send of one element per rank.
void warm_up(list<collective_call> calls, const std::vector<placement>& where, device_streams& streams, const site& at) {
  std::vector<std::pair<int, device_memory>> scratch;  // by device
  std::vector<std::byte*> base(calls.size());
  for (std::size_t k = 0; k < calls.size(); ++k) {
    int most = 0;
    for (std::size_t j = 0; j < calls.size(); ++j)
      if (where[j].device == where[k].device) most = std::max(most, where[j].ranks);
    auto it = std::find_if(scratch.begin(), scratch.end(), [&](const auto& s) { return s.first == where[k].device; });
    if (it == scratch.end()) {
      device_scope on(where[k].device, at);
      void* p = nullptr;
      CGRAPH_CUDA(cudaMalloc(&p, 2 * 8 * static_cast<std::size_t>(most)), at);
      scratch.emplace_back(where[k].device, device_memory::adopt(p));
      it = scratch.end() - 1;
    }
    base[k] = static_cast<std::byte*>(it->second.get());
  }
  issue_all(calls, where, streams, [&](std::size_t k) {
    const auto half = 8 * static_cast<std::size_t>(where[k].ranks);
    return buffers{base[k], base[k] + half, 1};
  }, at);
  for (const auto& [device, s] : streams.all()) CGRAPH_CUDA(cudaStreamSynchronize(s), at);
}

// Events that fork the other devices' streams from the first's and join them back.
class fork_join_events {
public:
  fork_join_events() = default;
  fork_join_events(const fork_join_events&) = delete;
  fork_join_events& operator=(const fork_join_events&) = delete;
  ~fork_join_events() {
    for (cudaEvent_t e : events_) (void)cudaEventDestroy(e);
  }
  cudaEvent_t make(int device, const site& at) {
    device_scope on(device, at);
    cudaEvent_t e = nullptr;
    CGRAPH_CUDA(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), at);
    events_.push_back(e);
    return e;
  }

private:
  std::vector<cudaEvent_t> events_;
};

}  // namespace

graph_handle capture_collectives(list<collective_call> calls, cudaStreamCaptureMode mode, const site& at) {
  const std::vector<placement> where = place(calls, at);
  device_streams streams;
  for (const placement& p : where) streams.get(p.device, at);
  warm_up(calls, where, streams, at);

  // Made before the capture: a thread-local capture forbids little, but nothing is risked.
  const int first = where.front().device;
  cudaStream_t origin = streams.get(first, at);
  fork_join_events events;
  std::vector<std::pair<cudaStream_t, std::pair<cudaEvent_t, cudaEvent_t>>> others;
  for (const auto& [device, s] : streams.all())
    if (device != first) others.push_back({s, {events.make(first, at), events.make(device, at)}});

  CGRAPH_CUDA(cudaStreamBeginCapture(origin, mode), at);
  cudaGraph_t graph = nullptr;
  try {
    for (const auto& [s, fork_join] : others) {
      CGRAPH_CUDA(cudaEventRecord(fork_join.first, origin), at);
      CGRAPH_CUDA(cudaStreamWaitEvent(s, fork_join.first, 0), at);
    }
    issue_all(calls, where, streams, [&](std::size_t k) {
      const collective_call& c = calls.data()[k];
      return buffers{c.send, c.recv, c.count};
    }, at);
    for (const auto& [s, fork_join] : others) {
      CGRAPH_CUDA(cudaEventRecord(fork_join.second, s), at);
      CGRAPH_CUDA(cudaStreamWaitEvent(origin, fork_join.second, 0), at);
    }
  } catch (...) {
    (void)cudaStreamEndCapture(origin, &graph);  // never leave a stream capturing
    if (graph) (void)cudaGraphDestroy(graph);
    (void)cudaGetLastError();
    throw;
  }
  // Ended even when a fault is injected: the stream must not stay capturing.
  cudaError_t status = cudaStreamEndCapture(origin, &graph);
  if (inject_fault()) status = cudaErrorNotPermitted;
  if (status != cudaSuccess && graph) {
    (void)cudaGraphDestroy(graph);
    graph = nullptr;
  }
  check(status, "cudaStreamEndCapture (collectives)", at);
  return graph_handle::adopt(graph);
}

#endif

}  // namespace cgraph::backend
