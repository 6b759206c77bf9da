# YAFFS2 Direct, compiled from the tree named by -DNANDKIT_YAFFS2_SOURCE=DIR
# (never copied into the repository) into nk_yaffs2_oracle, for the
# interoperability tests (tests/interop) and bench_yaffs2 (bench/yaffs2).
# The OS glue and the NAND drivers are nandkit's own, in those folders.
if(TARGET nk_yaffs2_oracle)
  return()
endif()
set(Y ${NANDKIT_YAFFS2_SOURCE})
foreach(f core/yaffs_guts.c direct/yaffsfs.c direct/yaffs_osglue.h)
  if(NOT EXISTS ${Y}/${f})
    message(FATAL_ERROR "NANDKIT_YAFFS2_SOURCE=${Y} has no ${f}: give the root of a YAFFS2 tree")
  endif()
endforeach()
set(NK_YAFFS2_CORE allocator attribs bitmap cache checkptrw ecc endian guts nameval nand
    packedtags1 packedtags2 summary tagscompat tagsmarshall verify yaffs1 yaffs2)
set(NK_YAFFS2_SOURCES ${Y}/direct/yaffsfs.c ${Y}/direct/yaffs_attribs.c
    ${Y}/direct/yaffs_error.c ${Y}/direct/yaffs_hweight.c)
foreach(f ${NK_YAFFS2_CORE})
  if(EXISTS ${Y}/core/yaffs_${f}.c)
    list(APPEND NK_YAFFS2_SOURCES ${Y}/core/yaffs_${f}.c)
  endif()
endforeach()
list(REMOVE_DUPLICATES NK_YAFFS2_SOURCES)
# direct/yaffs_attribs.c and core's attribute header: the Direct one wins.
add_library(nk_yaffs2_oracle STATIC ${NK_YAFFS2_SOURCES})
target_include_directories(nk_yaffs2_oracle PUBLIC ${Y}/direct ${Y}/core)
target_compile_definitions(nk_yaffs2_oracle PUBLIC CONFIG_YAFFS_DIRECT CONFIG_YAFFS_YAFFS2
  CONFIG_YAFFS_DEFINES_TYPES CONFIG_YAFFS_PROVIDE_DEFS CONFIG_YAFFSFS_PROVIDE_VALUES _GNU_SOURCE)
# Not nandkit's code: its warnings are not ours to fix.
target_compile_options(nk_yaffs2_oracle PRIVATE -w)
set_target_properties(nk_yaffs2_oracle PROPERTIES C_EXTENSIONS ON)

