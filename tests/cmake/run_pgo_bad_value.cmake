# build.pgo_bad_value: configuring with CGRAPH_PGO=sometimes fails, and says which values work.
# -DSOURCE=<source tree> -DBUILD=<a scratch build folder> -DGENERATOR=<CMake generator>
file(REMOVE_RECURSE ${BUILD})
execute_process(
  COMMAND ${CMAKE_COMMAND} -S ${SOURCE} -B ${BUILD} -G ${GENERATOR} -DCGRAPH_PGO=sometimes -DCGRAPH_WITH_RUNTIME=OFF
          -DCGRAPH_BUILD_TESTS=OFF -DCGRAPH_BUILD_BENCH=OFF -DCGRAPH_BUILD_EXAMPLES=OFF -DCGRAPH_INSTALL=OFF
  RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(result EQUAL 0)
  message(FATAL_ERROR "configuring with CGRAPH_PGO=sometimes succeeded")
endif()
if(NOT err MATCHES "CGRAPH_PGO is 'sometimes': use OFF, GENERATE or USE")
  message(FATAL_ERROR "configuring with CGRAPH_PGO=sometimes failed without naming the values that work:\n${err}")
endif()
file(REMOVE_RECURSE ${BUILD})
