#pragma once
// cgraph's run-time API: compile .cgraph text and build, instantiate, launch and update CUDA
// graphs from it. See docs/runtime.md.

#include <cgraph/compiler/compile.hpp>
#include <cgraph/runtime/args.hpp>
#include <cgraph/runtime/error.hpp>
#include <cgraph/runtime/graph.hpp>
#include <cgraph/runtime/registry.hpp>
#include <cgraph/runtime/versions.hpp>
