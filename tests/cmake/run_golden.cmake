# Runs one cgraphc command and compares what it printed with a golden file.
#   -DCGRAPHC=… -DARGS="a|b" -DWORKDIR=… -DEXPECTED=… [-DINPUT=file given as standard input]
# The golden file holds stdout, then "--- stderr ---" and stderr (when there is any), then
# "--- exit N ---". With CGRAPH_UPDATE_GOLDEN=1 in the environment the file is rewritten.
string(REPLACE "|" ";" ARGS "${ARGS}")
set(input_option "")
if(DEFINED INPUT)
  set(input_option INPUT_FILE ${INPUT})
endif()
execute_process(
  COMMAND ${CGRAPHC} ${ARGS}
  WORKING_DIRECTORY ${WORKDIR}
  ${input_option}
  OUTPUT_VARIABLE out
  ERROR_VARIABLE err
  RESULT_VARIABLE rc)
set(actual "${out}")
if(NOT err STREQUAL "")
  string(APPEND actual "--- stderr ---\n${err}")
endif()
string(APPEND actual "--- exit ${rc} ---\n")

if("$ENV{CGRAPH_UPDATE_GOLDEN}" STREQUAL "1")
  file(WRITE ${EXPECTED} "${actual}")
  message(STATUS "updated ${EXPECTED}")
  return()
endif()
if(NOT EXISTS ${EXPECTED})
  message(FATAL_ERROR "missing golden file ${EXPECTED}; run with CGRAPH_UPDATE_GOLDEN=1 to create it.\nActual output:\n${actual}")
endif()
file(READ ${EXPECTED} expected)
if(NOT actual STREQUAL expected)
  file(WRITE ${EXPECTED}.actual "${actual}")
  execute_process(COMMAND diff -u ${EXPECTED} ${EXPECTED}.actual OUTPUT_VARIABLE delta)
  message(FATAL_ERROR "output differs from ${EXPECTED} (actual saved as .actual):\n${delta}")
endif()
file(REMOVE ${EXPECTED}.actual)
