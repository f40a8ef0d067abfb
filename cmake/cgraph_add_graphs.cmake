# cgraph_add_graphs(TARGET <target> [MODE explicit|capture] [NO_CHECK_UNITS] [TABLE_THRESHOLD N]
#                   FILES a.cgraph ...)
#
# Compiles .cgraph files at build time, like protobuf_generate does .proto files: for each
# file, `cgraphc emit-cpp` writes <name>.cgraph.hpp into the target's generated folder, which
# the target's sources include (#include "saxpy.cgraph.hpp"). The file is regenerated when the
# .cgraph file or cgraphc changes; a .cgraph error fails the build with cgraphc's diagnostic.
# Each generated header is also compiled once on its own (a generated .cu that includes it),
# so a kernel whose C++ signature drifted from its declaration fails the build even before a
# source uses the graph (NO_CHECK_UNITS skips that, for targets whose own sources include every
# header: a graph of 10 000 nodes is then compiled once, not twice). TABLE_THRESHOLD passes
# `--table-threshold N` to cgraphc: graphs of at least N nodes take the table form (0: never;
# by default cgraphc's own threshold). The target links cgraph::cgraph and needs the CUDA
# language.
function(cgraph_add_graphs)
  cmake_parse_arguments(PARSE_ARGV 0 arg "NO_CHECK_UNITS" "TARGET;MODE;TABLE_THRESHOLD" "FILES")
  if(NOT arg_TARGET OR NOT TARGET ${arg_TARGET})
    message(FATAL_ERROR "cgraph_add_graphs: TARGET must name an existing target (got '${arg_TARGET}')")
  endif()
  if(NOT arg_FILES)
    message(FATAL_ERROR "cgraph_add_graphs: FILES is empty")
  endif()
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "cgraph_add_graphs: unknown arguments: ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT arg_MODE)
    set(arg_MODE explicit)
  endif()
  if(NOT arg_MODE MATCHES "^(explicit|capture)$")
    message(FATAL_ERROR "cgraph_add_graphs: MODE must be explicit or capture (got '${arg_MODE}')")
  endif()

  set(threshold)
  if(DEFINED arg_TABLE_THRESHOLD)
    if(NOT arg_TABLE_THRESHOLD MATCHES "^[0-9]+$")
      message(FATAL_ERROR "cgraph_add_graphs: TABLE_THRESHOLD must be a number of nodes (got '${arg_TABLE_THRESHOLD}')")
    endif()
    set(threshold --table-threshold ${arg_TABLE_THRESHOLD})
  endif()

  set(out_dir ${CMAKE_CURRENT_BINARY_DIR}/cgraph_generated/${arg_TARGET})
  foreach(file IN LISTS arg_FILES)
    get_filename_component(source ${file} ABSOLUTE)
    get_filename_component(name ${file} NAME)
    get_filename_component(source_dir ${source} DIRECTORY)
    set(header ${out_dir}/${name}.hpp)
    set(check_unit ${out_dir}/${name}.cu)
    add_custom_command(
      OUTPUT ${header}
      COMMAND cgraph::cgraphc emit-cpp ${source} --mode ${arg_MODE} ${threshold} -o ${header} --depfile ${header}.d
      DEPENDS ${source} cgraph::cgraphc
      DEPFILE ${header}.d  # the files it imports
      COMMENT "cgraphc emit-cpp ${name} (${arg_MODE})"
      VERBATIM)
    target_sources(${arg_TARGET} PRIVATE ${header})
    if(NOT arg_NO_CHECK_UNITS)
      if(NOT EXISTS ${check_unit})
        file(WRITE ${check_unit} "// Compiles ${name}.hpp once on its own: its kernel signature checks run in every build.\n#include \"${name}.hpp\"\n")
      endif()
      target_sources(${arg_TARGET} PRIVATE ${check_unit})
    endif()
    # The .cgraph file's folder: its `include "kernels.cuh"` lines are relative to it.
    target_include_directories(${arg_TARGET} PRIVATE ${out_dir} ${source_dir})
  endforeach()
  target_link_libraries(${arg_TARGET} PRIVATE cgraph::cgraph)
  # The generated code is C++20 compiled by nvcc; CMake 3.25 lacks nvcc's C++20 flag. Taught
  # here, in the caller's directory, for projects that take cgraph with add_subdirectory.
  if(CMAKE_CUDA_COMPILER_LOADED AND NOT DEFINED CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
    set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20" PARENT_SCOPE)
    set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20" PARENT_SCOPE)
    set(CMAKE_CUDA_COMPILE_FEATURES ${CMAKE_CUDA_COMPILE_FEATURES} cuda_std_20 PARENT_SCOPE)
  endif()
endfunction()
