// SPDX-License-Identifier: MIT
/*
 * autoscale_select.c - the domains the autoscaler follows, by domid, name,
 * glob or --all.  See autoscale_select.h.
 */
#include <fnmatch.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <xen/xen.h>

#include "autoscale_select.h"

/* All decimal digits, below Xen's reserved ids: a domid. */
static bool is_domid(const char *spec, unsigned int *domid)
{
	char *end;
	unsigned long v;

	if (*spec < '0' || *spec > '9')
		return false;
	v = strtoul(spec, &end, 10);
	if (*end || v >= DOMID_FIRST_RESERVED)
		return false;
	*domid = (unsigned int)v;
	return true;
}

bool as_spec_is_glob(const char *spec)
{
	return strpbrk(spec, "*?[") != NULL;
}

bool as_spec_matches(const char *spec, const char *name, unsigned int domid)
{
	unsigned int id;

	if (is_domid(spec, &id))
		return id == domid;
	if (!name)
		return false;
	if (as_spec_is_glob(spec))
		return domid != AS_DOM0 && !fnmatch(spec, name, 0);
	return !strcmp(spec, name);
}

bool as_domain_selected(bool all, const char *const *specs, unsigned int n,
			const char *name, unsigned int domid)
{
	unsigned int i;

	if (all && domid != AS_DOM0)
		return true;
	for (i = 0; i < n; i++)
		if (as_spec_matches(specs[i], name, domid))
			return true;
	return false;
}
