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
