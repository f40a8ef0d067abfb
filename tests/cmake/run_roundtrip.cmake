# `cgraphc fmt` round trip for one file: formatting twice changes nothing, and the formatted
# file lowers to the same IR (compared without source locations).
#   -DCGRAPHC=… -DINPUT=… -DTMPDIR=…
get_filename_component(name ${INPUT} NAME_WE)
set(once ${TMPDIR}/${name}.fmt1.cgraph)
set(twice ${TMPDIR}/${name}.fmt2.cgraph)
file(MAKE_DIRECTORY ${TMPDIR})

function(run_to file)
  execute_process(COMMAND ${CGRAPHC} ${ARGN} OUTPUT_FILE ${file} ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "cgraphc ${ARGN} failed (${rc}):\n${err}")
  endif()
endfunction()

run_to(${once} fmt ${INPUT})
run_to(${twice} fmt ${once})
file(READ ${once} a)
file(READ ${twice} b)
if(NOT a STREQUAL b)
  message(FATAL_ERROR "formatting ${INPUT} twice changed it: compare ${once} and ${twice}")
endif()
run_to(${TMPDIR}/${name}.orig.ir ir --no-locations ${INPUT})
run_to(${TMPDIR}/${name}.fmt.ir ir --no-locations ${once})
file(READ ${TMPDIR}/${name}.orig.ir ir_a)
file(READ ${TMPDIR}/${name}.fmt.ir ir_b)
if(NOT ir_a STREQUAL ir_b)
  message(FATAL_ERROR "the formatted ${INPUT} lowers to a different IR")
endif()
