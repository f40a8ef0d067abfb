# Profile-guided optimisation of the front end (docs/performance.md, run 60; issue 17).
#
# The front end (the X3 grammar, the checks, lowering) is branchy code whose profile is flat:
# no one function is worth rewriting for a few per cent, but a compiler that knows which
# branches are taken lays out and inlines all of them better. scripts/pgo_build.sh builds in
# two rounds in one build folder: CGRAPH_PGO=GENERATE makes an instrumented cgraphc, which
# runs over the examples and the golden inputs (scripts/pgo_train.sh; never a benchmark's
# text), and CGRAPH_PGO=USE builds again from the counts those runs wrote next to each object
# file. GCC only: its counts are files beside the objects, found again by the same paths, so
# both rounds must use the same build folder.
set(CGRAPH_PGO "OFF" CACHE STRING "Profile-guided optimisation of the front end: OFF, GENERATE or USE (scripts/pgo_build.sh runs both)")
set_property(CACHE CGRAPH_PGO PROPERTY STRINGS OFF GENERATE USE)
string(TOUPPER "${CGRAPH_PGO}" _cgraph_pgo)
if(NOT _cgraph_pgo MATCHES "^(OFF|GENERATE|USE)$")
  message(FATAL_ERROR "CGRAPH_PGO is '${CGRAPH_PGO}': use OFF, GENERATE or USE")
endif()
if(NOT _cgraph_pgo STREQUAL "OFF" AND NOT CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  message(FATAL_ERROR "CGRAPH_PGO=${CGRAPH_PGO} needs GCC (the C++ compiler is ${CMAKE_CXX_COMPILER_ID})")
endif()

# cgraph_pgo(target): builds `target`'s C++ sources for the round CGRAPH_PGO names.
function(cgraph_pgo target)
  if(_cgraph_pgo STREQUAL "GENERATE")
    # One thread trains, so the counters need no atomic updates (which would slow training).
    target_compile_options(${target} PRIVATE "$<$<COMPILE_LANGUAGE:CXX>:-fprofile-generate;-fprofile-update=single>")
    # Whatever links the instrumented library needs gcov's run-time (never installed: a
    # GENERATE build is a step of a build, not a product).
    target_link_options(${target} INTERFACE "$<BUILD_INTERFACE:-fprofile-generate>")
  elseif(_cgraph_pgo STREQUAL "USE")
    # -fprofile-partial-training: code the training never ran is optimised as usual, not for
    # size. A source with no counts builds without them; one changed since training warns
    # that its counts no longer match (GCC makes that an error unless told otherwise).
    target_compile_options(${target} PRIVATE
      "$<$<COMPILE_LANGUAGE:CXX>:-fprofile-use;-fprofile-partial-training;-fprofile-correction;-Wno-missing-profile;-Wno-error=coverage-mismatch>")
  endif()
endfunction()
