// SPDX-License-Identifier: MIT
/*
 * hypervisor.c - what Xen handed us at boot.
 */
#include <smpalt/hypervisor.h>

start_info_t *hyp_start_info;
shared_info_t *hyp_shared_info;
unsigned int hyp_version_major, hyp_version_minor;
