/* SPDX-License-Identifier: MIT */
/*
 * autoscale_select.h - which domains the autoscaler follows, pure: the
 * DOMAIN arguments (domids, names, fnmatch(3) globs) and --all against a
 * domain's name and domid.  Host tests: autoscale_select_test.c.
 *
 * A spec of decimal digits is a domid and matches that domain only (a
 * rebooted guest gets a new domid: follow it by name).  Any other spec is
 * a name or a glob ("web-*", "db[12]") matched against the whole name.
 * Domain 0 is never scaled unless a spec names it exactly ("0" or its
 * name without glob characters): neither --all nor a glob takes it.
 */
#ifndef SMPALT_AUTOSCALE_SELECT_H
#define SMPALT_AUTOSCALE_SELECT_H

#include <stdbool.h>

/* The control domain. */
#define AS_DOM0 0

/* Does spec take the domain (name may be NULL: not known yet)? */
bool as_spec_matches(const char *spec, const char *name, unsigned int domid);

/* Is spec a pattern (holds fnmatch's *, ? or [)? */
bool as_spec_is_glob(const char *spec);

/* --all, or any of the n specs, takes the domain. */
bool as_domain_selected(bool all, const char *const *specs, unsigned int n,
			const char *name, unsigned int domid);

#endif /* SMPALT_AUTOSCALE_SELECT_H */
