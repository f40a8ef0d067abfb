# cgraph_set_warnings(target): the warning set every cgraph target builds with (C++ sources;
# nvcc's host pass would drown in -Wpedantic notes about its own line directives).
function(cgraph_set_warnings target)
  if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    set(flags -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion)
    if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
      # GCC 12 reports -Wrestrict inside libstdc++'s std::string at -O2 (GCC bug 105329).
      list(APPEND flags -Wno-restrict)
    endif()
    if(CGRAPH_WARNINGS_AS_ERRORS)
      list(APPEND flags -Werror)
    endif()
    target_compile_options(${target} PRIVATE "$<$<COMPILE_LANGUAGE:CXX>:${flags}>")
  endif()
endfunction()
