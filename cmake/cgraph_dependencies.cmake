# Third-party dependencies, all from the system's packages (scripts/setup.sh installs them).

find_package(Boost 1.74 REQUIRED CONFIG)  # Spirit X3 is header-only: Boost::headers
find_package(fmt REQUIRED CONFIG)

# range-v3: the package's CMake config where there is one, else its headers on the extra path.
find_package(range-v3 CONFIG QUIET)
if(NOT TARGET range-v3::range-v3)
  find_path(CGRAPH_RANGE_V3_INCLUDE_DIR range/v3/all.hpp HINTS ${CGRAPH_EXTRA_INCLUDE_DIRS} REQUIRED)
  add_library(range-v3::range-v3 INTERFACE IMPORTED)
  target_include_directories(range-v3::range-v3 INTERFACE ${CGRAPH_RANGE_V3_INCLUDE_DIR})
endif()

if(CGRAPH_BUILD_TESTS)
  find_package(doctest REQUIRED CONFIG)
endif()

# NCCL, optional (collectives, LANGUAGE.md §15): its header and library from NCCL_ROOT (a CMake
# or environment variable), the CUDA toolkit, or the system's folders. CGRAPH_WITH_NCCL=OFF
# leaves it out even where it is found.
option(CGRAPH_WITH_NCCL "Use NCCL for collectives when it is found" ON)
set(CGRAPH_NCCL_FOUND FALSE)
if(CGRAPH_WITH_NCCL AND CGRAPH_WITH_RUNTIME)
  set(_cgraph_nccl_hints ${NCCL_ROOT} $ENV{NCCL_ROOT} ${CUDAToolkit_LIBRARY_ROOT})
  find_path(CGRAPH_NCCL_INCLUDE_DIR nccl.h HINTS ${_cgraph_nccl_hints} ${CUDAToolkit_INCLUDE_DIRS}
            PATH_SUFFIXES include)
  # libnccl.so.2 by its full name too: some systems install no unversioned link.
  find_library(CGRAPH_NCCL_LIBRARY NAMES nccl libnccl.so.2 HINTS ${_cgraph_nccl_hints} ${CUDAToolkit_LIBRARY_DIR}
               PATH_SUFFIXES lib lib64 lib/x86_64-linux-gnu)
  if(CGRAPH_NCCL_INCLUDE_DIR AND CGRAPH_NCCL_LIBRARY)
    set(CGRAPH_NCCL_FOUND TRUE)
    message(STATUS "cgraph: NCCL found (${CGRAPH_NCCL_LIBRARY}): collectives enabled")
  else()
    message(STATUS "cgraph: NCCL not found: collectives are a build error (set NCCL_ROOT to use them)")
  endif()
endif()
