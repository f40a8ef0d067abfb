# Renders `cgraphc dot` output with Graphviz, proving it is valid DOT.
#   -DCGRAPHC=… -DDOT=… -DINPUT=… -DTMPDIR=…
get_filename_component(name ${INPUT} NAME_WE)
file(MAKE_DIRECTORY ${TMPDIR})
execute_process(COMMAND ${CGRAPHC} dot ${INPUT} OUTPUT_FILE ${TMPDIR}/${name}.dot RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cgraphc dot ${INPUT} failed (${rc})")
endif()
execute_process(COMMAND ${DOT} -Tsvg ${TMPDIR}/${name}.dot -o ${TMPDIR}/${name}.svg ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT err STREQUAL "")
  message(FATAL_ERROR "Graphviz rejected the DOT of ${INPUT}:\n${err}")
endif()
