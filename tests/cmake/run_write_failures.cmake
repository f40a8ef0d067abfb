# usage.write_failures: a write that fails is exit 2 with the reason, never a success with
# nothing (or half a file) written, and never a source file left truncated.
#   -DCGRAPHC=… -DBASH=… -DTMPDIR=…
# Failures come from /dev/full (standard output on a full disk) and from bash's `ulimit -f 1`
# (files of at most 1 KiB; SIGXFSZ ignored, so a longer write fails with EFBIG).
file(REMOVE_RECURSE ${TMPDIR})
file(MAKE_DIRECTORY ${TMPDIR})

function(expect_exit_2 what rc err needle)
  if(NOT rc EQUAL 2)
    message(FATAL_ERROR "${what}: exit ${rc}, expected 2; stderr: ${err}")
  endif()
  string(FIND "${err}" "${needle}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${what}: stderr does not say '${needle}':\n${err}")
  endif()
endfunction()

# A graph of 60 launches written without blanks: 876 bytes, 1 121 once formatted, so under a
# 1 KiB limit its copy fits and its canonical form does not.
set(launches "")
foreach(i RANGE 1 60)
  string(APPEND launches "q<<<1,1>>>(p);")
endforeach()
set(compact "kernel q(p:f32*);\ngraph g(p:f32*){${launches}}\n")
# The same graph after a comment of 300 bytes: 1 176 bytes, so not even its copy fits.
string(REPEAT "c" 300 long_comment)
set(long "// ${long_comment}\n${compact}")
file(WRITE ${TMPDIR}/ok.cgraph "${compact}")

# Standard output on a full disk, for each command that prints.
foreach(command "ir;ok.cgraph" "dot;ok.cgraph" "fmt;ok.cgraph" "fmt;--check;ok.cgraph" "emit-cpp;ok.cgraph;--mode;explicit")
  execute_process(COMMAND ${CGRAPHC} ${command} WORKING_DIRECTORY ${TMPDIR}
                  OUTPUT_FILE /dev/full ERROR_VARIABLE err RESULT_VARIABLE rc)
  string(JOIN " " shown ${command})
  expect_exit_2("cgraphc ${shown} > /dev/full" "${rc}" "${err}" "cannot write standard output")
endforeach()

function(run_limited out_rc out_err)  # ARGN: cgraphc's arguments, under a 1 KiB file-size limit
  string(JOIN " " args ${ARGN})
  execute_process(COMMAND ${BASH} -c "trap '' XFSZ; ulimit -f 1; exec '${CGRAPHC}' ${args}"
                  WORKING_DIRECTORY ${TMPDIR} ERROR_VARIABLE err RESULT_VARIABLE rc)
  set(${out_rc} "${rc}" PARENT_SCOPE)
  set(${out_err} "${err}" PARENT_SCOPE)
endfunction()

# fmt -i of a file holding `text` fails under the limit, says `needle`, and leaves the file as it
# was with no copy of it beside it.
function(expect_fmt_in_place_keeps what text needle)
  file(WRITE ${TMPDIR}/src.cgraph "${text}")
  run_limited(rc err fmt -i src.cgraph)
  expect_exit_2("fmt -i, ${what}" "${rc}" "${err}" "${needle}")
  file(READ ${TMPDIR}/src.cgraph after)
  if(NOT after STREQUAL text)
    message(FATAL_ERROR "fmt -i (${what}) left src.cgraph as:\n${after}")
  endif()
  file(GLOB left RELATIVE ${TMPDIR} ${TMPDIR}/*)
  list(SORT left)
  if(NOT left STREQUAL "ok.cgraph;src.cgraph")
    message(FATAL_ERROR "fmt -i (${what}) left in ${TMPDIR}: ${left}")
  endif()
  file(REMOVE ${TMPDIR}/src.cgraph)
endfunction()

# The rewrite fails: the copy made first is renamed back.
expect_fmt_in_place_keeps("the rewrite too long" "${compact}" "cannot write 'src.cgraph'")
# The copy cannot be made: the file is not touched.
expect_fmt_in_place_keeps("the copy too long" "${long}" "'src.cgraph' is unchanged")

# emit-cpp -o that cannot write the whole file removes what it wrote.
run_limited(rc err emit-cpp ok.cgraph --mode explicit -o out.hpp)
expect_exit_2("emit-cpp -o, the output too long" "${rc}" "${err}" "cannot write 'out.hpp'")
if(EXISTS ${TMPDIR}/out.hpp)
  message(FATAL_ERROR "emit-cpp -o left a partial out.hpp")
endif()
