# .cu files include cgraph's C++20 headers. CMake 3.25 knows nvcc's dialect flags only up to
# C++17 and then refuses targets that need CUDA20; teach it the flag (newer CMake has it).
# Included by cgraph's own build and by the installed package config, after CUDA is enabled.
if(NOT DEFINED CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
  set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
  set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
  list(APPEND CMAKE_CUDA_COMPILE_FEATURES cuda_std_20)
endif()
