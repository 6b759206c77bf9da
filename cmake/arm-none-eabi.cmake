# Cross toolchain for the Cortex-M builds (Debian package gcc-arm-none-eabi).
# NANDKIT_CPU picks the core (default cortex-m4; cortex-m3, cortex-m0plus...):
#   cmake -DCMAKE_TOOLCHAIN_FILE=cmake/arm-none-eabi.cmake -DNANDKIT_CPU=cortex-m0plus
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)
set(CMAKE_C_COMPILER arm-none-eabi-gcc)
set(CMAKE_AR arm-none-eabi-ar)
set(CMAKE_RANLIB arm-none-eabi-ranlib)
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
if(NOT NANDKIT_CPU)
  set(NANDKIT_CPU cortex-m4)
endif()
set(NANDKIT_CPU ${NANDKIT_CPU} CACHE STRING "Cortex-M core for -mcpu")
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES NANDKIT_CPU)
# newlib's uint32_t is `unsigned long`: diagnostics formats are checked by the
# host build instead (see include/nandkit/diag.h).
set(CMAKE_C_FLAGS_INIT "-mcpu=${NANDKIT_CPU} -mthumb -mfloat-abi=soft -ffunction-sections -fdata-sections -DNK_NO_FORMAT_CHECK")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
