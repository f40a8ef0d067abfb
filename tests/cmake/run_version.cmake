# usage.version: `cgraphc --version` prints "cgraphc VERSION", and the newest entry of the
# changelog is VERSION, so users see one version number (also the package's, find_package).
execute_process(COMMAND ${CGRAPHC} --version OUTPUT_VARIABLE out OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT out STREQUAL "cgraphc ${VERSION}")
  message(FATAL_ERROR "cgraphc --version printed '${out}' (exit ${rc}), expected 'cgraphc ${VERSION}'")
endif()
file(STRINGS ${CHANGELOG} headings REGEX "^## ")
list(GET headings 0 newest)
if(NOT newest MATCHES "^## ${VERSION}[ (]")
  message(FATAL_ERROR "the newest changelog entry is '${newest}', the project's version is ${VERSION}")
endif()
