# consumer.install: the package installed into an empty prefix, so that files an older layout
# installed cannot satisfy (or fail) the consumer tests. -DBUILD=<build tree> -DPREFIX=<prefix>
file(REMOVE_RECURSE ${PREFIX})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD} --prefix ${PREFIX} RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "install failed: ${result}")
endif()
