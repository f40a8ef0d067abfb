#pragma once
// The compiler's public surface in one include: compile text to IR (compile.hpp), print it as
// IR text, DOT or diagnostics (printers.hpp), emit C++ for build-time use (emit_cpp.hpp).

#include <cgraph/compiler/compile.hpp>
#include <cgraph/compiler/emit_cpp.hpp>
#include <cgraph/compiler/printers.hpp>
