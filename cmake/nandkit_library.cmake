# nk_library(NAME EXPORT name SOURCES ... [PRIVATE_INCLUDES ...] [LINK ...])
#
# One nandkit library: the sources are compiled once (an OBJECT library) into
# a static library NAME, exported and aliased as nandkit::<EXPORT>, and, with
# NANDKIT_SHARED, a shared library NAME_shared (file libNAME.so.<major>, with
# that SONAME) exported as nandkit::<EXPORT>_shared. LINK names other nandkit
# libraries by their static target; the shared library links their shared
# counterparts. Include paths are relative to nandkit's own source and binary
# directories, so a parent project's layout does not matter.
include(GNUInstallDirs)

function(nk_library name)
  cmake_parse_arguments(NK "" "EXPORT" "SOURCES;PRIVATE_INCLUDES;LINK" ${ARGN})
  set(public_includes $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
                      $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/include>
                      $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)

  add_library(${name}_objects OBJECT ${NK_SOURCES})
  target_include_directories(${name}_objects PUBLIC ${public_includes}
                                             PRIVATE ${NK_PRIVATE_INCLUDES})
  target_compile_options(${name}_objects PRIVATE ${NK_WARNINGS})
  target_link_libraries(${name}_objects PUBLIC ${NK_LINK})
  if(NANDKIT_SHARED)
    set_target_properties(${name}_objects PROPERTIES POSITION_INDEPENDENT_CODE ON)
  endif()

  add_library(${name} STATIC $<TARGET_OBJECTS:${name}_objects>)
  target_include_directories(${name} PUBLIC ${public_includes})
  target_link_libraries(${name} PUBLIC ${NK_LINK})
  set_target_properties(${name} PROPERTIES EXPORT_NAME ${NK_EXPORT})
  add_library(nandkit::${NK_EXPORT} ALIAS ${name})
  set_property(GLOBAL APPEND PROPERTY NK_EXPORTED_TARGETS ${name})

  if(NANDKIT_SHARED)
    set(shared_link "")
    foreach(lib ${NK_LINK})
      if(TARGET ${lib}_shared)
        list(APPEND shared_link ${lib}_shared)
      else()
        list(APPEND shared_link ${lib})
      endif()
    endforeach()
    add_library(${name}_shared SHARED $<TARGET_OBJECTS:${name}_objects>)
    target_include_directories(${name}_shared PUBLIC ${public_includes})
    target_link_libraries(${name}_shared PUBLIC ${shared_link})
    set_target_properties(${name}_shared PROPERTIES
      OUTPUT_NAME ${name} EXPORT_NAME ${NK_EXPORT}_shared
      VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR})
    add_library(nandkit::${NK_EXPORT}_shared ALIAS ${name}_shared)
    set_property(GLOBAL APPEND PROPERTY NK_EXPORTED_TARGETS ${name}_shared)
  endif()
endfunction()
