// A CUDA runtime that does nothing, cheaply, for host_work_bench: every call cgraph's runtime
// library makes succeeds at once and hands out fresh fake handles, so a profiler (callgrind,
// perf) sees cgraph's own host work alone, on a machine without a GPU. Stream capture is
// followed just far enough for the capture strategy to run: each capturing stream keeps its
// graph and its current dependencies. NCCL's entry points are stubbed too. Not a CUDA: nothing
// runs, and nothing here checks its arguments.
#include "fake_cuda.hpp"

#include <cuda_runtime_api.h>
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>
namespace {
std::uintptr_t next_handle = 0x1000;
template <class T> T fresh() { next_handle += 16; return reinterpret_cast<T>(next_handle); }
struct capture { bool on = false; cudaGraph_t graph = nullptr; std::vector<cudaGraphNode_t> deps; unsigned long long id = 0; };
std::unordered_map<cudaStream_t, capture>& streams() { static std::unordered_map<cudaStream_t, capture> m; return m; }
std::unordered_map<cudaEvent_t, capture>& events() { static std::unordered_map<cudaEvent_t, capture> m; return m; }
// Each graph's nodes in the order they were made, as CUDA lists them (cudaGraphGetNodes).
std::unordered_map<cudaGraph_t, std::vector<cudaGraphNode_t>>& graph_nodes() { static std::unordered_map<cudaGraph_t, std::vector<cudaGraphNode_t>> m; return m; }
thread_local cudaStreamCaptureMode thread_mode = cudaStreamCaptureModeGlobal;  // cudaThreadExchangeStreamCaptureMode's
cudaGraphNode_t made_in(cudaGraph_t g) { auto n = fresh<cudaGraphNode_t>(); graph_nodes()[g].push_back(n); return n; }
// What each kernel node was given, in the order made, when recording is on (tests/fake_runtime
// checks a build's values with it; host_work_bench leaves it off, so it costs a branch).
bool recording = false;
long handles_made = 0;  // streams and events created (fake_cuda::streams_and_events_made)
long param_info_asked = 0;  // cudaFuncGetParamInfo calls (fake_cuda::param_info_calls)
std::vector<fake_cuda::kernel_record>& records() { static std::vector<fake_cuda::kernel_record> r; return r; }
void record_kernel(const void* function, dim3 grid, dim3 block, size_t shared, void** args) {
  unsigned long long a = 0, first = 0;
  std::memcpy(&a, args[1], 4);  // the kernels registered with the fake take (8 bytes, 4 bytes)
  std::memcpy(&first, args[0], 8);
  records().push_back({grid, block, static_cast<unsigned>(shared), a, first, function, nullptr});
}
// Every node made while recording, with what it depends on (fake_cuda::kernel_edges).
std::vector<std::pair<cudaGraphNode_t, cudaGraphNode_t>>& dependencies() { static std::vector<std::pair<cudaGraphNode_t, cudaGraphNode_t>> d; return d; }
// Node `n` was just made after `deps`; `kernel`: the kernel record made for it just before.
// Out of line, and called only while recording: the host-work budgets count the fake's
// instructions too, and inline it cost every node about 20.
[[gnu::noinline]] void record_node(cudaGraphNode_t n, const cudaGraphNode_t* deps, size_t count, bool kernel) {
  for (size_t i = 0; i < count; ++i) dependencies().emplace_back(deps[i], n);
  if (kernel) records().back().node = n;
}
// What a build set beside its nodes' values (fake_cuda::graph_calls), when recording is on.
std::vector<std::string>& calls() { static std::vector<std::string> c; return c; }
void record_call(std::string line) { if (recording) calls().push_back(std::move(line)); }
// The programmatic edges among `n` edges' data (a full edge is not logged).
void record_edges(const cudaGraphEdgeData* e, size_t n) {
  for (size_t i = 0; e && i < n; ++i)
    if (e[i].type == cudaGraphDependencyTypeProgrammatic)
      record_call("edge from port " + std::to_string(e[i].from_port) + " to port " + std::to_string(e[i].to_port));
}
cudaError_t captured(cudaStream_t s, bool kernel = false) {
  auto& c = streams()[s];
  if (c.on) {
    const cudaGraphNode_t n = made_in(c.graph);
    if (recording) record_node(n, c.deps.data(), c.deps.size(), kernel);
    c.deps.assign(1, n);
  }
  return cudaSuccess;
}
}
extern "C" {
#define OK return cudaSuccess
void** __cudaRegisterFatBinary(void*) { static void* h[4]; return h; }
void __cudaRegisterFatBinaryEnd(void**) {}
void __cudaUnregisterFatBinary(void**) {}
void __cudaRegisterFunction(void**, const char*, char*, const char*, int, void*, void*, void*, void*, int*) {}
cudaError_t __cudaGetKernel(void**, const void*) { OK; }
cudaError_t __cudaLaunchKernel(const void*, dim3, dim3, void**, size_t, cudaStream_t) { OK; }
unsigned __cudaPopCallConfiguration(dim3*, dim3*, size_t*, void*) { return 0; }
cudaError_t cudaDeviceGetAttribute(int* v, cudaDeviceAttr, int) { *v = 1 << 20; OK; }
cudaError_t cudaDriverGetVersion(int* v) { *v = 13000; OK; }
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* e, unsigned) { *e = fresh<cudaEvent_t>(); ++handles_made; OK; }
cudaError_t cudaEventDestroy(cudaEvent_t) { OK; }
cudaError_t cudaEventQuery(cudaEvent_t) { OK; }
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s) { auto& c = streams()[s]; if (c.on) events()[e] = c; OK; }
cudaError_t cudaEventSynchronize(cudaEvent_t) { OK; }
cudaError_t cudaFree(void*) { OK; }
// As CUDA does, cudaMalloc is refused while a capture is open, unless this thread's capture mode
// is relaxed: what a build must do before its capture begins, the fake refuses too
// (tests/fake_runtime).
cudaError_t cudaMalloc(void** p, size_t) {
  if (thread_mode != cudaStreamCaptureModeRelaxed)
    for (auto& [stream, c] : streams()) if (c.on) return cudaErrorStreamCaptureUnsupported;
  *p = fresh<void*>(); OK;
}
cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* a, const void*) { *a = {}; a->maxThreadsPerBlock = 1024; OK; }
cudaError_t cudaFuncGetParamInfo(const void*, size_t i, size_t* off, size_t* size) {
  ++param_info_asked;
  if (i > 1) return cudaErrorInvalidValue;
  *off = i * 8; *size = i == 0 ? 8 : 4; OK;
}
cudaError_t cudaFuncSetAttribute(const void*, cudaFuncAttribute, int) { OK; }
// The thread's current device, set by a test only (one device is counted): what a capture
// session's streams belong to.
thread_local int current_device = 0;
cudaError_t cudaGetDevice(int* d) { *d = current_device; OK; }
cudaError_t cudaSetDevice(int d) {
  if (d < 0 || d > 7) return cudaErrorInvalidDevice;
  current_device = d; OK;
}
cudaError_t cudaGetDeviceCount(int* n) { *n = 1; OK; }
cudaError_t cudaGetDeviceProperties(cudaDeviceProp* p, int) { *p = {}; p->major = 9; OK; }
const char* cudaGetErrorName(cudaError_t) { return "cudaErrorFake"; }
const char* cudaGetErrorString(cudaError_t) { return "fake"; }
cudaError_t cudaGetLastError() { OK; }
#define ADD(name, ...) cudaError_t name(cudaGraphNode_t* n, cudaGraph_t g, const cudaGraphNode_t* d, size_t count, __VA_ARGS__) { *n = made_in(g); if (recording) record_node(*n, d, count, false); OK; }
ADD(cudaGraphAddChildGraphNode, cudaGraph_t)
ADD(cudaGraphAddEventRecordNode, cudaEvent_t)
ADD(cudaGraphAddEventWaitNode, cudaEvent_t)
ADD(cudaGraphAddHostNode, const cudaHostNodeParams*)
[[gnu::noinline]] cudaError_t add_recorded_kernel_node(cudaGraphNode_t* n, cudaGraph_t g, const cudaGraphNode_t* d, size_t count,
                                                     const cudaKernelNodeParams* p) {
  record_kernel(p->func, p->gridDim, p->blockDim, p->sharedMemBytes, p->kernelParams);
  *n = made_in(g);
  record_node(*n, d, count, true);
  OK;
}
// Recording apart, at the top: where the dependencies were kept across made_in for it, every
// node cost 6 instructions more of saved registers (host_work_generated).
cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t* n, cudaGraph_t g, const cudaGraphNode_t* d, size_t count, const cudaKernelNodeParams* p) {
  if (recording) return add_recorded_kernel_node(n, g, d, count, p);
  *n = made_in(g);
  OK;
}
// An allocation gets a fresh address, as CUDA hands one out when the node is added: the table
// form's tests check that the kernels after it are given it (tests/fake_runtime).
cudaError_t cudaGraphAddMemAllocNode(cudaGraphNode_t* n, cudaGraph_t g, const cudaGraphNode_t* d, size_t count,
                                     cudaMemAllocNodeParams* p) {
  *n = made_in(g);
  if (recording) record_node(*n, d, count, false);
  p->dptr = fresh<void*>();
  OK;
}
ADD(cudaGraphAddMemFreeNode, void*)
ADD(cudaGraphAddMemsetNode, const cudaMemsetParams*)
ADD(cudaGraphAddMemcpyNode1D, void*, const void*, size_t, cudaMemcpyKind)
cudaError_t cudaGraphAddNode(cudaGraphNode_t* n, cudaGraph_t g, const cudaGraphNode_t* d, const cudaGraphEdgeData* e, size_t count, cudaGraphNodeParams* p) {
  *n = made_in(g);
  record_edges(e, count);
  if (recording) {
    const bool kernel = p->type == cudaGraphNodeTypeKernel;
    if (kernel)
      record_kernel(p->kernel.func, p->kernel.gridDim, p->kernel.blockDim, p->kernel.sharedMemBytes, p->kernel.kernelParams);
    record_node(*n, d, count, kernel);
  }
  if (p->type == cudaGraphNodeTypeConditional) {
    static cudaGraph_t bodies[8];
    for (unsigned i = 0; i < p->conditional.size; ++i) bodies[i] = fresh<cudaGraph_t>();
    p->conditional.phGraph_out = bodies;
  }
  OK;
}
cudaError_t cudaGraphConditionalHandleCreate(cudaGraphConditionalHandle* h, cudaGraph_t, unsigned, unsigned) { *h = next_handle++; OK; }
cudaError_t cudaGraphCreate(cudaGraph_t* g, unsigned) { *g = fresh<cudaGraph_t>(); OK; }
cudaError_t cudaGraphDebugDotPrint(cudaGraph_t, const char*, unsigned) { OK; }
cudaError_t cudaGraphDestroy(cudaGraph_t g) { graph_nodes().erase(g); OK; }
cudaError_t cudaGraphExecChildGraphNodeSetParams(cudaGraphExec_t, cudaGraphNode_t, cudaGraph_t) { OK; }
cudaError_t cudaGraphExecDestroy(cudaGraphExec_t) { OK; }
cudaError_t cudaGraphExecEventRecordNodeSetEvent(cudaGraphExec_t, cudaGraphNode_t, cudaEvent_t) { OK; }
cudaError_t cudaGraphExecEventWaitNodeSetEvent(cudaGraphExec_t, cudaGraphNode_t, cudaEvent_t) { OK; }
cudaError_t cudaGraphExecHostNodeSetParams(cudaGraphExec_t, cudaGraphNode_t, const cudaHostNodeParams*) { OK; }
// As CUDA does, an exec setter refuses a node that is not there: a build that lost a node's
// handle shows as an update that fell back to the whole graph (host_work_bench checks).
cudaError_t cudaGraphExecKernelNodeSetParams(cudaGraphExec_t, cudaGraphNode_t n, const cudaKernelNodeParams* p) {
  if (recording && n) record_kernel(p->func, p->gridDim, p->blockDim, p->sharedMemBytes, p->kernelParams);
  return n ? cudaSuccess : cudaErrorInvalidValue; }
cudaError_t cudaGraphExecMemcpyNodeSetParams1D(cudaGraphExec_t, cudaGraphNode_t, void*, const void*, size_t, cudaMemcpyKind) { OK; }
cudaError_t cudaGraphExecMemsetNodeSetParams(cudaGraphExec_t, cudaGraphNode_t, const cudaMemsetParams*) { OK; }
cudaError_t cudaGraphExecUpdate(cudaGraphExec_t, cudaGraph_t, cudaGraphExecUpdateResultInfo* r) { *r = {}; r->result = cudaGraphExecUpdateSuccess; OK; }
cudaError_t cudaGraphGetNodes(cudaGraph_t g, cudaGraphNode_t* out, size_t* n) {
  auto it = graph_nodes().find(g);
  const size_t count = it == graph_nodes().end() ? 0 : it->second.size();
  if (out) for (size_t i = 0; i < *n && i < count; ++i) out[i] = it->second[i];
  *n = count;
  OK;
}
cudaError_t cudaGraphInstantiateWithParams(cudaGraphExec_t* e, cudaGraph_t, cudaGraphInstantiateParams* p) { *e = fresh<cudaGraphExec_t>(); p->result_out = cudaGraphInstantiateSuccess; OK; }
cudaError_t cudaGraphKernelNodeSetAttribute(cudaGraphNode_t, cudaLaunchAttributeID id, const cudaLaunchAttributeValue* v) {
  if (id == cudaLaunchAttributePriority) record_call("priority " + std::to_string(v->priority));
  else if (id == cudaLaunchAttributeClusterDimension)
    record_call("cluster " + std::to_string(v->clusterDim.x) + "," + std::to_string(v->clusterDim.y) + "," + std::to_string(v->clusterDim.z));
  else record_call("attribute " + std::to_string(static_cast<int>(id)));
  OK; }
cudaError_t cudaGraphKernelNodeSetParams(cudaGraphNode_t, const cudaKernelNodeParams*) { OK; }
cudaError_t cudaGraphLaunch(cudaGraphExec_t, cudaStream_t) { OK; }
cudaError_t cudaGraphNodeGetType(cudaGraphNode_t, cudaGraphNodeType* t) { *t = cudaGraphNodeTypeKernel; OK; }
cudaError_t cudaGraphNodeSetEnabled(cudaGraphExec_t, cudaGraphNode_t, unsigned on) { record_call(on ? "enabled" : "disabled"); OK; }
cudaError_t cudaGraphRetainUserObject(cudaGraph_t, cudaUserObject_t, unsigned, unsigned) { OK; }
cudaError_t cudaGraphUpload(cudaGraphExec_t, cudaStream_t) { OK; }
cudaError_t cudaLaunchHostFunc(cudaStream_t s, cudaHostFn_t, void*) { return captured(s); }
cudaError_t cudaLaunchKernel(const void* function, dim3 grid, dim3 block, void** args, size_t shared, cudaStream_t s) {
  if (recording) record_kernel(function, grid, block, shared, args);
  return captured(s, true);
}
cudaError_t cudaMemcpyAsync(void*, const void*, size_t, cudaMemcpyKind, cudaStream_t s) { return captured(s); }
// A module file of any bytes loads, and every symbol names a kernel (whose parameters the fake's
// cudaFuncGetParamInfo tells): tests/fake_runtime counts how often a module kernel is probed.
cudaError_t cudaLibraryGetKernel(cudaKernel_t* k, cudaLibrary_t, const char*) { *k = fresh<cudaKernel_t>(); OK; }
cudaError_t cudaLibraryLoadData(cudaLibrary_t*, const void*, cudaJitOption*, void**, unsigned, cudaLibraryOption*, void**, unsigned) { return cudaErrorNotSupported; }
cudaError_t cudaLibraryLoadFromFile(cudaLibrary_t* l, const char*, cudaJitOption*, void**, unsigned, cudaLibraryOption*, void**, unsigned) { *l = fresh<cudaLibrary_t>(); OK; }
cudaError_t cudaLibraryUnload(cudaLibrary_t) { OK; }
cudaError_t cudaStreamBeginCapture(cudaStream_t s, cudaStreamCaptureMode) { auto& c = streams()[s]; c = {true, fresh<cudaGraph_t>(), {}, next_handle++}; OK; }
cudaError_t cudaStreamBeginCaptureToGraph(cudaStream_t s, cudaGraph_t g, const cudaGraphNode_t* d, const cudaGraphEdgeData* e, size_t n, cudaStreamCaptureMode) {
  record_edges(e, n);
  auto& c = streams()[s]; c = {true, g, std::vector<cudaGraphNode_t>(d, d + n), next_handle++}; OK; }
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* s, unsigned) { *s = fresh<cudaStream_t>(); ++handles_made; OK; }
cudaError_t cudaStreamDestroy(cudaStream_t) { OK; }
// As CUDA does, ending a capture ends it on every stream that joined it.
cudaError_t cudaStreamEndCapture(cudaStream_t s, cudaGraph_t* g) {
  auto& c = streams()[s]; *g = c.graph;
  const auto id = c.id;
  for (auto& [stream, other] : streams()) if (other.on && other.id == id) other = {};
  c = {}; OK;
}
cudaError_t cudaStreamGetCaptureInfo(cudaStream_t s, cudaStreamCaptureStatus* st, unsigned long long* id, cudaGraph_t* g,
                                     const cudaGraphNode_t** d, const cudaGraphEdgeData** e, size_t* n) {
  auto& c = streams()[s];
  *st = c.on ? cudaStreamCaptureStatusActive : cudaStreamCaptureStatusNone;
  if (id) *id = c.id; if (g) *g = c.graph; if (d) *d = c.deps.data(); if (e) *e = nullptr; if (n) *n = c.deps.size();
  OK;
}
cudaError_t cudaStreamIsCapturing(cudaStream_t s, cudaStreamCaptureStatus* st) { *st = streams()[s].on ? cudaStreamCaptureStatusActive : cudaStreamCaptureStatusNone; OK; }
cudaError_t cudaStreamSynchronize(cudaStream_t) { OK; }
cudaError_t cudaStreamUpdateCaptureDependencies(cudaStream_t s, cudaGraphNode_t* d, const cudaGraphEdgeData* e, size_t n, unsigned flags) {
  record_edges(e, n);
  auto& c = streams()[s];
  if (flags == cudaStreamSetCaptureDependencies) c.deps.assign(d, d + n); else c.deps.insert(c.deps.end(), d, d + n);
  OK;
}
cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned) {
  auto& ev = events()[e]; auto& c = streams()[s];
  if (ev.on) { if (!c.on) { c = ev; } else c.deps.insert(c.deps.end(), ev.deps.begin(), ev.deps.end()); }
  OK;
}
cudaError_t cudaThreadExchangeStreamCaptureMode(cudaStreamCaptureMode* m) { std::swap(*m, thread_mode); OK; }
cudaError_t cudaUserObjectCreate(cudaUserObject_t* o, void* p, cudaHostFn_t destroy, unsigned, unsigned) { *o = fresh<cudaUserObject_t>(); (void)p; (void)destroy; OK; }
cudaError_t cudaUserObjectRelease(cudaUserObject_t, unsigned) { OK; }
int ncclAllGather() { return 0; } int ncclAllReduce() { return 0; } int ncclBroadcast() { return 0; }
int ncclCommCount() { return 0; } int ncclCommCuDevice() { return 0; }
const char* ncclGetErrorString(int) { return ""; } const char* ncclGetLastError(void*) { return ""; }
int ncclGroupEnd() { return 0; } int ncclGroupStart() { return 0; } int ncclRecv() { return 0; }
int ncclReduce() { return 0; } int ncclReduceScatter() { return 0; } int ncclSend() { return 0; }
}
namespace fake_cuda {
void record_kernels(bool on) { recording = on; records().clear(); calls().clear(); dependencies().clear(); }
std::vector<std::pair<unsigned long long, unsigned long long>> kernel_edges() {
  std::unordered_map<cudaGraphNode_t, unsigned long long> arg_of;
  for (const auto& k : records()) if (k.node) arg_of[k.node] = k.arg1;
  std::vector<std::pair<unsigned long long, unsigned long long>> out;
  for (const auto& [from, to] : dependencies()) {
    auto f = arg_of.find(from), t = arg_of.find(to);
    if (f != arg_of.end() && t != arg_of.end()) out.emplace_back(f->second, t->second);
  }
  std::sort(out.begin(), out.end());
  return out;
}
const std::vector<kernel_record>& kernels_recorded() { return records(); }
const std::vector<std::string>& graph_calls() { return calls(); }
long streams_and_events_made() { return handles_made; }
long param_info_calls() { return param_info_asked; }
}  // namespace fake_cuda
