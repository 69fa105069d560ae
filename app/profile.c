// SPDX-License-Identifier: MIT
/*
 * profile.c - parse a phased workload profile and evaluate it over time
 * (syntax in profile.h).  Pure: compiled into the guest and into the host
 * tests (tests/unit/profile_test.c), so it uses no library function.
 */
#include <smpalt/profile.h>
#include <smpalt/errno.h>

#define PROFILE_MS_PER_SEC 1000U
#define PROFILE_BASE 10U
/* Limits named in the messages come from profile.h. */
#define PROFILE_STR_(x) #x
#define PROFILE_STR(x) PROFILE_STR_(x)
#define PROFILE_WHY_SECONDS \
	"seconds out of range 1.." PROFILE_STR(PROFILE_SECONDS_MAX)
#define PROFILE_WHY_DEMAND \
	"demand out of range 0.." PROFILE_STR(PROFILE_DEMAND_MAX)
#define PROFILE_WHY_PHASES \
	"more than " PROFILE_STR(PROFILE_PHASES_MAX) " phases"

static bool profile_is_sep(char c)
{
	return c == ' ' || c == ',' || c == '\t';
}

static bool profile_is_name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_' || c == '-';
}

/* text equals word exactly. */
static bool profile_is_word(const char *text, const char *word)
{
	while (*word && *text == *word) {
		text++;
		word++;
	}
	return !*word && !*text;
}

/*
 * A decimal number in [min, max] at *s (advanced past it).  Returns 0 or
 * -EINVAL with *why set.
 */
static int profile_number(const char **s, uint32_t min, uint32_t max,
			  uint32_t *val, const char **why,
			  const char *range_why)
{
	const char *p = *s;
	uint64_t v = 0;

	if (*p < '0' || *p > '9') {
		*why = "expected a number";
		return -EINVAL;
	}
	while (*p >= '0' && *p <= '9') {
		v = v * PROFILE_BASE + (uint64_t)(*p - '0');
		if (v > max) {
			*why = range_why;
			return -EINVAL;
		}
		p++;
	}
	if (v < min) {
		*why = range_why;
		return -EINVAL;
	}
	*val = (uint32_t)v;
	*s = p;
	return 0;
}

static int profile_fail(struct profile_error *err, unsigned int phase,
			const char *text, const char *at, const char *why)
{
	if (err) {
		err->phase = phase;
		err->offset = (size_t)(at - text);
		err->why = why;
	}
	return -EINVAL;
}

/* One phase at *s (advanced past it) into ph. */
static int profile_parse_phase(const char **s, struct profile_phase *ph,
			       const char **why)
{
	const char *p = *s;
	unsigned int n = 0;
	int rc;

	while (profile_is_name_char(*p)) {
		if (n + 1 >= PROFILE_NAME_MAX) {
			*why = "name too long";
			*s = p;
			return -EINVAL;
		}
		ph->label[n++] = *p++;
	}
	ph->label[n] = '\0';
	if (!n) {
		*why = "expected a phase name";
		*s = p;
		return -EINVAL;
	}
	if (*p != ':') {
		*why = "expected ':' and seconds after the name";
		*s = p;
		return -EINVAL;
	}
	p++;
	rc = profile_number(&p, 1, PROFILE_SECONDS_MAX, &ph->seconds, why,
			    PROFILE_WHY_SECONDS);
	if (rc) {
		*s = p;
		return rc;
	}
	ph->from = 0;
	if (*p == ':') {
		p++;
		rc = profile_number(&p, 0, PROFILE_DEMAND_MAX, &ph->from, why,
				    PROFILE_WHY_DEMAND);
		if (rc) {
			*s = p;
			return rc;
		}
	}
	ph->to = ph->from;
	if (*p == ':') {
		p++;
		rc = profile_number(&p, 0, PROFILE_DEMAND_MAX, &ph->to, why,
				    PROFILE_WHY_DEMAND);
		if (rc) {
			*s = p;
			return rc;
		}
	}
	*s = p;
	if (*p && !profile_is_sep(*p)) {
		*why = "unexpected character after the phase";
		return -EINVAL;
	}
	return 0;
}

int profile_parse(const char *text, struct profile *p,
		  struct profile_error *err)
{
	const char *s = text, *why = "";
	int rc;

	if (profile_is_word(text, PROFILE_WORD_DEFAULT))
		return profile_parse(PROFILE_DEFAULT, p, err);
	if (profile_is_word(text, PROFILE_WORD_OFF))
		return -ENOENT;

	p->count = 0;
	p->total_seconds = 0;
	for (;;) {
		while (profile_is_sep(*s))
			s++;
		if (!*s)
			break;
		if (p->count == PROFILE_PHASES_MAX)
			return profile_fail(err, p->count + 1, text, s,
					    PROFILE_WHY_PHASES);
		rc = profile_parse_phase(&s, &p->phase[p->count], &why);
		if (rc)
			return profile_fail(err, p->count + 1, text, s, why);
		p->total_seconds += p->phase[p->count].seconds;
		p->count++;
	}
	if (!p->count) {
		/* Only separators, or nothing: no profile, not an error. */
		return -ENOENT;
	}
	return 0;
}

const struct profile_phase *profile_at(const struct profile *p, uint64_t ms,
				       unsigned int *demand)
{
	unsigned int i;

	for (i = 0; i < p->count; i++) {
		const struct profile_phase *ph = &p->phase[i];
		uint64_t len = (uint64_t)ph->seconds * PROFILE_MS_PER_SEC;

		if (ms < len) {
			/* Linear from `from` to `to` over the phase. */
			int64_t span = (int64_t)ph->to - (int64_t)ph->from;

			*demand = (unsigned int)((int64_t)ph->from +
						 span * (int64_t)ms /
							 (int64_t)len);
			return ph;
		}
		ms -= len;
	}
	*demand = 0;
	return NULL;
}
