# Install and export: headers, the static libraries, cgraphc, and a package config so that
# find_package(cgraph CONFIG REQUIRED) gives cgraph::cgraph, cgraph::cgraphc and
# cgraph_add_graphs. Included by the top-level CMakeLists after every target exists.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(cgraph_installed_targets cgraph_dsl cgraph_compiler cgraph cgraphc)
if(CGRAPH_WITH_RUNTIME)
  list(APPEND cgraph_installed_targets cgraph_runtime)
endif()
set_target_properties(cgraph_dsl PROPERTIES EXPORT_NAME dsl)
set_target_properties(cgraph_compiler PROPERTIES EXPORT_NAME compiler)
if(CGRAPH_WITH_RUNTIME)
  set_target_properties(cgraph_runtime PROPERTIES EXPORT_NAME runtime)
endif()

install(TARGETS ${cgraph_installed_targets}
  EXPORT cgraphTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# Only include/cgraph: the AST and parser headers (dsl/internal) stay in the build tree.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/cgraph DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.hpp")

set(cgraph_config_dir ${CMAKE_INSTALL_LIBDIR}/cmake/cgraph)
install(EXPORT cgraphTargets NAMESPACE cgraph:: DESTINATION ${cgraph_config_dir})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/cgraphConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cgraphConfig.cmake INSTALL_DESTINATION ${cgraph_config_dir})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/cgraphConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES
  ${PROJECT_BINARY_DIR}/cgraphConfig.cmake
  ${PROJECT_BINARY_DIR}/cgraphConfigVersion.cmake
  ${PROJECT_SOURCE_DIR}/cmake/cgraph_add_graphs.cmake
  ${PROJECT_SOURCE_DIR}/cmake/cgraph_cuda20.cmake
  DESTINATION ${cgraph_config_dir})
