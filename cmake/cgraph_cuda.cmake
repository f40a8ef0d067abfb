# The CUDA toolkit, for the runtime. Found the same way at build time as at run time: CUDACXX,
# then CUDA_PATH / CUDA_HOME, then /usr/local/cuda. Without a toolkit only the compiler and
# cgraphc are built (CGRAPH_WITH_RUNTIME=OFF).
include(CheckLanguage)
if(NOT DEFINED CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX})
  foreach(root $ENV{CUDA_PATH} $ENV{CUDA_HOME} /usr/local/cuda)
    if(EXISTS ${root}/bin/nvcc)
      set(CMAKE_CUDA_COMPILER ${root}/bin/nvcc CACHE FILEPATH "CUDA compiler")
      break()
    endif()
  endforeach()
endif()
check_language(CUDA)
set(cgraph_cuda_default OFF)
if(CMAKE_CUDA_COMPILER)
  set(cgraph_cuda_default ON)
endif()
option(CGRAPH_WITH_RUNTIME "Build the CUDA runtime, its GPU tests and examples" ${cgraph_cuda_default})
if(CGRAPH_WITH_RUNTIME)
  # Hopper by default (the GPU machines); set CMAKE_CUDA_ARCHITECTURES for others. Not
  # "native": the build machines have no GPU to ask.
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
    set(CMAKE_CUDA_ARCHITECTURES 90)
  endif()
  enable_language(CUDA)
  # .cu files include cgraph's C++20 headers. CMake 3.25 knows nvcc's dialect flags only up to
  # C++17 and then refuses targets that need CUDA20; teach it the flag (newer CMake has it).
  if(NOT DEFINED CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
    set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
    set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
    list(APPEND CMAKE_CUDA_COMPILE_FEATURES cuda_std_20)
  endif()
  set(CMAKE_CUDA_STANDARD 20)
  set(CMAKE_CUDA_STANDARD_REQUIRED ON)
  find_package(CUDAToolkit REQUIRED)
endif()
