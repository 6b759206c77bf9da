/* SPDX-License-Identifier: MIT */
/* User-space stand-in: see nk_kernel_shim.h. */
#include "nk_kernel_shim.h"
