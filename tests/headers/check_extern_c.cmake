# cmake -DHEADERS_DIR=include/nandkit -P check_extern_c.cmake
# Fails naming each public header that declares something (a function or
# an object: a line ending in ");" or a typedef/struct/enum) without being
# wrapped in #ifdef __cplusplus / extern "C" { ... }.
file(GLOB headers ${HEADERS_DIR}/*.h)
list(LENGTH headers count)
if(count EQUAL 0)
  message(FATAL_ERROR "no headers in ${HEADERS_DIR}")
endif()
set(bad "")
foreach(header ${headers})
  file(READ ${header} text)
  string(FIND "${text}" "extern \"C\" {" open_at)
  string(REGEX MATCHALL "#ifdef __cplusplus" ifdefs "${text}")
  list(LENGTH ifdefs n_ifdefs)
  string(FIND "${text}" "#ifdef __cplusplus\n}" close_at REVERSE)
  if(open_at EQUAL -1 OR n_ifdefs LESS 2 OR close_at LESS open_at)
    list(APPEND bad ${header})
  endif()
endforeach()
if(bad)
  message(FATAL_ERROR "public headers without extern \"C\" guards: ${bad}")
endif()
message(STATUS "${count} public headers carry extern \"C\" guards")
