# `cmake --install`: headers, the static (and shared) libraries, the nandkit
# tool, nandkit.pc and the CMake package (find_package(nandkit) with targets
# nandkit::core, nandkit::sim, nandkit::mtd and their *_shared twins).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(NK_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/nandkit)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/nandkit
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h")
install(FILES ${PROJECT_BINARY_DIR}/include/nandkit/version.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/nandkit)

get_property(NK_EXPORTED GLOBAL PROPERTY NK_EXPORTED_TARGETS)
install(TARGETS ${NK_EXPORTED} EXPORT nandkitTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
if(TARGET nandkit)
  install(TARGETS nandkit RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  # Its manual pages (made from the --help texts at build time) and bash completion.
  install(DIRECTORY ${PROJECT_BINARY_DIR}/man/ DESTINATION ${CMAKE_INSTALL_MANDIR}/man1
          FILES_MATCHING PATTERN "*.1")
  install(FILES ${PROJECT_SOURCE_DIR}/tools/completion/nandkit.bash
          DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME nandkit)
endif()

install(EXPORT nandkitTargets NAMESPACE nandkit:: DESTINATION ${NK_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/nandkitConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/nandkitConfig.cmake
                              INSTALL_DESTINATION ${NK_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/nandkitConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/nandkitConfig.cmake
              ${PROJECT_BINARY_DIR}/nandkitConfigVersion.cmake
        DESTINATION ${NK_CMAKE_DIR})

# pkg-config: `pkg-config --cflags --libs nandkit` (shared libraries when
# installed, --static for the archives).
set(NK_PC_LIBS "-lnandkit_core")
if(TARGET nandkit_sim)
  set(NK_PC_LIBS "-lnandkit_sim ${NK_PC_LIBS}")
endif()
if(TARGET nandkit_mtd)
  set(NK_PC_LIBS "-lnandkit_mtd ${NK_PC_LIBS}")
endif()
# Relocatable: the prefix is found from the .pc file's own place, so
# `cmake --install build --prefix DIR` works whatever prefix was configured.
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(NK_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
else()
  file(RELATIVE_PATH NK_PC_UP "/x/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/x")
  string(REGEX REPLACE "/$" "" NK_PC_UP "${NK_PC_UP}")
  set(NK_PC_PREFIX "\${pcfiledir}/${NK_PC_UP}")
endif()
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(NK_PC_LIBDIR "${CMAKE_INSTALL_LIBDIR}")
else()
  set(NK_PC_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
endif()
if(IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  set(NK_PC_INCLUDEDIR "${CMAKE_INSTALL_INCLUDEDIR}")
else()
  set(NK_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
endif()
configure_file(${PROJECT_SOURCE_DIR}/cmake/nandkit.pc.in ${PROJECT_BINARY_DIR}/nandkit.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/nandkit.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
