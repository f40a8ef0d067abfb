# Profile-guided optimisation of the front end (docs/performance.md, run 60; issue 17).
#
# The front end (the X3 grammar, the checks, lowering) is branchy code whose profile is flat:
# no one function is worth rewriting for a few per cent, but a compiler that knows which
# branches are taken lays out and inlines all of them better. scripts/pgo_build.sh builds in
# two rounds in one build folder: CGRAPH_PGO=GENERATE makes an instrumented cgraphc, which
# runs over the examples and the golden inputs (scripts/pgo_train.sh; never a benchmark's
# text), and CGRAPH_PGO=USE builds again from the counts those runs wrote.
# - GCC writes its counts beside each object file and finds them again by the same paths, so
#   both rounds must use the same build folder.
# - Clang writes raw profiles into CGRAPH_PGO_DIR, which llvm-profdata merges into
#   CGRAPH_PGO_DIR/cgraph.profdata before the second round (scripts/pgo_build.sh does).
set(CGRAPH_PGO "OFF" CACHE STRING "Profile-guided optimisation of the front end: OFF, GENERATE or USE (scripts/pgo_build.sh runs both)")
set_property(CACHE CGRAPH_PGO PROPERTY STRINGS OFF GENERATE USE)
set(CGRAPH_PGO_DIR "${PROJECT_BINARY_DIR}/pgo" CACHE PATH "Where Clang's profile-guided build keeps its profiles")
string(TOUPPER "${CGRAPH_PGO}" _cgraph_pgo)
if(NOT _cgraph_pgo MATCHES "^(OFF|GENERATE|USE)$")
  message(FATAL_ERROR "CGRAPH_PGO is '${CGRAPH_PGO}': use OFF, GENERATE or USE")
endif()
if(NOT _cgraph_pgo STREQUAL "OFF")
  if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    string(REGEX MATCH "^[0-9]+" _cgraph_clang_major "${CMAKE_CXX_COMPILER_VERSION}")
    # Beside the compiler first: /usr/lib/llvm-N/bin holds both, and is rarely on PATH.
    get_filename_component(_cgraph_clang_dir "${CMAKE_CXX_COMPILER}" DIRECTORY)
    find_program(CGRAPH_LLVM_PROFDATA NAMES llvm-profdata-${_cgraph_clang_major} llvm-profdata HINTS "${_cgraph_clang_dir}"
                 DOC "llvm-profdata of the Clang that builds cgraph (merges the profile-guided build's profiles)")
    if(NOT CGRAPH_LLVM_PROFDATA)
      message(FATAL_ERROR "CGRAPH_PGO=${CGRAPH_PGO} with Clang needs llvm-profdata (llvm-profdata-${_cgraph_clang_major})")
    endif()
    if(_cgraph_pgo STREQUAL "USE" AND NOT EXISTS "${CGRAPH_PGO_DIR}/cgraph.profdata")
      message(FATAL_ERROR "CGRAPH_PGO=USE: no ${CGRAPH_PGO_DIR}/cgraph.profdata; train a GENERATE build and merge "
                          "its profiles first (scripts/pgo_build.sh does both)")
    endif()
  elseif(NOT CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    message(FATAL_ERROR "CGRAPH_PGO=${CGRAPH_PGO} needs GCC or Clang (the C++ compiler is ${CMAKE_CXX_COMPILER_ID})")
  endif()
endif()

# Each compiler's flags for the two rounds: compiling and linking instrumented, compiling from
# the profile.
if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  set(_cgraph_pgo_generate -fprofile-generate=${CGRAPH_PGO_DIR})
  set(_cgraph_pgo_generate_link ${_cgraph_pgo_generate})
  # A function with no profile, or one changed since training, builds as usual (warned).
  set(_cgraph_pgo_use -fprofile-use=${CGRAPH_PGO_DIR}/cgraph.profdata -Wno-profile-instr-unprofiled
                      -Wno-profile-instr-out-of-date)
else()
  # One thread trains, so the counters need no atomic updates (which would slow training).
  set(_cgraph_pgo_generate -fprofile-generate -fprofile-update=single)
  set(_cgraph_pgo_generate_link -fprofile-generate)
  # -fprofile-partial-training: code the training never ran is optimised as usual, not for
  # size. A source with no counts builds without them; one changed since training warns that
  # its counts no longer match (GCC makes that an error unless told otherwise).
  set(_cgraph_pgo_use -fprofile-use -fprofile-partial-training -fprofile-correction -Wno-missing-profile
                      -Wno-error=coverage-mismatch)
endif()

# Whatever links the instrumented libraries needs the profiling run-time: every C++ link of the
# project, not the libraries' usage requirements, since the fake-runtime tests and host-work
# benchmarks link them by file ($<TARGET_FILE:…>). Never installed: a GENERATE build is a step
# of a build, not a product.
if(_cgraph_pgo STREQUAL "GENERATE")
  add_link_options("$<$<LINK_LANGUAGE:CXX>:${_cgraph_pgo_generate_link}>")
endif()

# cgraph_pgo(target): builds `target`'s C++ sources for the round CGRAPH_PGO names.
function(cgraph_pgo target)
  if(_cgraph_pgo STREQUAL "GENERATE")
    target_compile_options(${target} PRIVATE "$<$<COMPILE_LANGUAGE:CXX>:${_cgraph_pgo_generate}>")
  elseif(_cgraph_pgo STREQUAL "USE")
    target_compile_options(${target} PRIVATE "$<$<COMPILE_LANGUAGE:CXX>:${_cgraph_pgo_use}>")
  endif()
endfunction()
