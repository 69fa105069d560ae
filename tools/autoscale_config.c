// SPDX-License-Identifier: MIT
/*
 * autoscale_config.c - the configuration file: parsed with inih,
 * validated whole, resolved per domain.  See autoscale_config.h.
 *
 * inih reads the lines through read_line() below (getline(3) on the file,
 * or on the text through fmemopen(3)), which counts them (so that every
 * error names its line) and reads section headers itself:
 * inih cuts a section name at its first ']' and at 50 characters, and a
 * glob may hold both.  inih splits "key = value", strips comments and
 * whitespace, and calls on_key().
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ini.h>

#include "autoscale_config.h"
#include "autoscale_glob.h"

#define GLOB_ERR_MAX 160
#define UTF8_BOM "\xef\xbb\xbf"
/* A field's origin: a line of the file, or one of these. */
#define FROM_BUILTIN 0
#define FROM_CLI UINT_MAX
/* parser.cur_i before any section, and in one refused (keys skipped). */
#define NO_SECTION (-1)
#define BAD_SECTION (-2)

struct section {
	char *header;  /* "[defaults]", "[domain \"web*\"]": for errors */
	char *pattern; /* NULL for [defaults] */
	bool glob;     /* pattern has * ? [ or \ */
	unsigned int line;
	struct as_settings s;		   /* the keys it gives */
	unsigned int from[AS_CONF_FIELDS]; /* their lines */
};

struct exclude {
	char *pattern;
	unsigned int line;
};

struct as_conf {
	struct as_settings defaults; /* base, [defaults], cli: all set */
	struct section *sec;	     /* the [domain] sections, file order */
	size_t nsec;
	struct exclude *excl;
	size_t nexcl;
};

/* One parse: where the lines come from, what was found, the errors. */
struct parser {
	const char *name;
	FILE *f;      /* the text */
	char *text;   /* its current line (getline's buffer) */
	size_t cap;   /* and its size */
	size_t bytes; /* read so far */
	unsigned int line;
	bool indented;	     /* the current line starts with blanks */
	bool stop;	     /* a line inih cannot take: no more lines */
	struct section *all; /* every section, [defaults] included */
	size_t nall;
	ssize_t cur_i; /* all[cur_i], or NO_SECTION, BAD_SECTION */
	struct exclude *excl;
	size_t nexcl;
	unsigned int errors;
	bool nomem;
	as_conf_report_fn report;
	void *ctx;
};

static void __attribute__((format(printf, 3, 4)))
error_at(struct parser *ps, unsigned int line, const char *fmt, ...)
{
	char *msg = NULL, *full = NULL;
	va_list ap;
	int n;

	ps->errors++;
	va_start(ap, fmt);
	n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (n < 0) {
		ps->nomem = true;
		return;
	}
	if (line)
		n = asprintf(&full, "%s:%u: %s", ps->name, line, msg);
	else
		n = asprintf(&full, "%s: %s", ps->name, msg);
	free(msg);
	if (n < 0) {
		ps->nomem = true;
		return;
	}
	if (ps->report)
		ps->report(ps->ctx, full);
	free(full);
}

static bool is_glob(const char *pattern)
{
	return strpbrk(pattern, "*?[\\") != NULL;
}

/* Sections. */

static struct section *add_section(struct parser *ps, const char *header,
				   const char *pattern)
{
	struct section *p, *s;

	p = reallocarray(ps->all, ps->nall + 1, sizeof(*p));
	if (!p) {
		ps->nomem = true;
		return NULL;
	}
	ps->all = p;
	s = &ps->all[ps->nall];
	*s = (struct section){.line = ps->line};
	s->header = strdup(header);
	s->pattern = pattern ? strdup(pattern) : NULL;
	if (!s->header || (pattern && !s->pattern)) {
		free(s->header);
		free(s->pattern);
		ps->nomem = true;
		return NULL;
	}
	s->glob = pattern && is_glob(pattern);
	ps->cur_i = (ssize_t)ps->nall++;
	return s;
}

/* The section called like s, before s, if any. */
static struct section *earlier_section(struct parser *ps, size_t i)
{
	const struct section *s = &ps->all[i];

	for (size_t k = 0; k < i; k++) {
		const struct section *o = &ps->all[k];

		if (!s->pattern && !o->pattern)
			return &ps->all[k];
		if (s->pattern && o->pattern && !strcmp(s->pattern, o->pattern))
			return &ps->all[k];
	}
	return NULL;
}

/*
 * A section header line, "[defaults]" or "[domain "PATTERN"]", followed
 * by nothing or a comment.  line has no newline.
 */
static void section_header(struct parser *ps, char *line)
{
	static const char domain[] = "[domain";
	char glob_err[GLOB_ERR_MAX];
	const char *close, *rest;
	struct section *s;
	char *q = NULL, *header;

	if (!strncmp(line, domain, sizeof(domain) - 1) &&
	    isspace((unsigned char)line[sizeof(domain) - 1])) {
		q = line + sizeof(domain) - 1;
		while (isspace((unsigned char)*q))
			q++;
		close = *q == '"' ? strstr(q + 1, "\"]") : NULL;
		if (!close && !strchr(q, ']')) {
			/* inih reports it (no ']'). */
			ps->cur_i = BAD_SECTION;
			return;
		}
		if (!close) {
			error_at(ps, ps->line,
				 "%s: expected [domain \"PATTERN\"]", line);
			ps->cur_i = BAD_SECTION;
			return;
		}
		rest = close + 2;
	} else {
		close = strchr(line, ']');
		if (!close) {
			/* inih reports it (no ']'). */
			ps->cur_i = BAD_SECTION;
			return;
		}
		rest = close + 1;
	}
	while (isspace((unsigned char)*rest))
		rest++;
	if (*rest && *rest != ';' && *rest != '#') {
		error_at(ps, ps->line, "text after the section header: %s",
			 rest);
		ps->cur_i = BAD_SECTION;
		return;
	}
	header = strndup(line, (size_t)(rest - line));
	if (!header) {
		ps->nomem = true;
		return;
	}
	/* The header up to its ']' only. */
	header[(close - line) + (*close == '"' ? 2 : 1)] = '\0';
	if (!strcmp(header, "[defaults]")) {
		s = add_section(ps, header, NULL);
	} else if (*close == '"') {
		char *pattern = strndup(q + 1, (size_t)(close - (q + 1)));

		if (!pattern) {
			ps->nomem = true;
			free(header);
			return;
		}
		s = add_section(ps, header, pattern);
		if (s && as_glob_check(pattern, glob_err, sizeof(glob_err)) < 0)
			error_at(ps, ps->line, "%s: bad pattern: %s", header,
				 glob_err);
		free(pattern);
	} else {
		error_at(ps, ps->line,
			 "unknown section %s (expected [defaults] or "
			 "[domain \"PATTERN\"])",
			 header);
		ps->cur_i = BAD_SECTION;
		free(header);
		return;
	}
	free(header);
	if (!s)
		return;
	{
		const struct section *o = earlier_section(ps, ps->nall - 1);

		if (o)
			error_at(ps, ps->line,
				 "%s given twice (first on line %u)", s->header,
				 o->line);
	}
}

/* inih's reader: one line of the text into buf (num bytes). */
static char *read_line(char *buf, int num, void *stream)
{
	struct parser *ps = stream;
	size_t n, skip = 0;
	ssize_t got;
	char *start;

	if (ps->stop)
		return NULL;
	got = getline(&ps->text, &ps->cap, ps->f);
	if (got < 0)
		return NULL; /* the end, or an error: ferror() tells */
	n = (size_t)got;
	ps->line++;
	ps->bytes += n;
	if (ps->bytes > AS_CONF_FILE_MAX) {
		error_at(ps, 0, "cannot read: larger than 1 MiB");
		ps->stop = true;
		return NULL;
	}
	if (memchr(ps->text, '\0', n)) {
		error_at(ps, ps->line, "a NUL byte (not a text file?)");
		ps->stop = true;
		return NULL;
	}
	if (n >= (size_t)num) {
		error_at(ps, ps->line, "line longer than %d characters",
			 num - 2);
		ps->stop = true;
		return NULL;
	}
	memcpy(buf, ps->text, n + 1);
	if (ps->line == 1 && !strncmp(buf, UTF8_BOM, strlen(UTF8_BOM)))
		skip = strlen(UTF8_BOM);
	start = buf + skip;
	ps->indented = isspace((unsigned char)*start) && *start != '\n' &&
		       *start != '\r';
	{
		char *s = start, *e;

		while (isspace((unsigned char)*s))
			s++;
		if (*s != '[')
			return buf;
		if (s != start) {
			error_at(ps, ps->line,
				 "a section header must start in the first "
				 "column");
			ps->cur_i = BAD_SECTION;
			return buf;
		}
		/* Without the newline, for section_header(). */
		e = s + strlen(s);
		while (e > s && (e[-1] == '\n' || e[-1] == '\r'))
			e--;
		{
			char save = *e;

			*e = '\0';
			section_header(ps, s);
			*e = save;
		}
	}
	return buf;
}

static struct section *current(struct parser *ps)
{
	return ps->cur_i >= 0 ? &ps->all[ps->cur_i] : NULL;
}

static void set_field(struct parser *ps, struct section *s,
		      const struct as_setting *st, const char *value)
{
	char want[GLOB_ERR_MAX];
	int f;

	for (f = 0; f < AS_CONF_FIELDS; f++) {
		if (!(st->bits & s->s.set & AS_CONF_BIT(f)))
			continue;
		error_at(ps, ps->line,
			 "%s %s: given twice (first on line %u%s)", s->header,
			 as_conf_key((enum as_conf_field)f), s->from[f],
			 ps->indented ? "; an indented line continues the "
					"value above"
				      : "");
		return;
	}
	if (as_setting_parse(st, value, &s->s)) {
		as_setting_describe(st, want, sizeof(want));
		error_at(ps, ps->line, "%s %s = \"%s\": expected %s", s->header,
			 st->key, value, want);
		return;
	}
	for (f = 0; f < AS_CONF_FIELDS; f++)
		if (st->bits & AS_CONF_BIT(f))
			s->from[f] = ps->line;
}

static void add_exclude(struct parser *ps, const char *value)
{
	char glob_err[GLOB_ERR_MAX];
	struct exclude *p;

	if (as_glob_check(value, glob_err, sizeof(glob_err)) < 0) {
		error_at(ps, ps->line, "[defaults] exclude = \"%s\": %s", value,
			 glob_err);
		return;
	}
	p = reallocarray(ps->excl, ps->nexcl + 1, sizeof(*p));
	if (!p) {
		ps->nomem = true;
		return;
	}
	ps->excl = p;
	p[ps->nexcl].pattern = strdup(value);
	p[ps->nexcl].line = ps->line;
	if (!p[ps->nexcl].pattern) {
		ps->nomem = true;
		return;
	}
	ps->nexcl++;
}

/* inih's handler: one "name = value" (section: ours, from read_line). */
static int on_key(void *user, const char *section, const char *name,
		  const char *value)
{
	struct parser *ps = user;
	struct section *s = current(ps);
	const struct as_setting *st;

	(void)section;
	if (ps->cur_i == BAD_SECTION)
		return 1; /* in a section already reported as bad */
	if (!s) {
		error_at(ps, ps->line,
			 "%s: outside a section (put it under [defaults] or "
			 "[domain \"PATTERN\"])",
			 name);
		return 1;
	}
	if (!*value) {
		error_at(ps, ps->line, "%s %s: empty value", s->header, name);
		return 1;
	}
	st = as_setting_by_key(name);
	if ((st && st->global) || !strcmp(name, "exclude")) {
		if (s->pattern) {
			error_at(ps, ps->line,
				 "%s %s: only in [defaults] (it applies to "
				 "all domains)",
				 s->header, name);
			return 1;
		}
		if (!st) {
			add_exclude(ps, value);
			return 1;
		}
	}
	if (st) {
		set_field(ps, s, st, value);
		return 1;
	}
	error_at(ps, ps->line, "%s %s: unknown key", s->header, name);
	return 1;
}

/* Where a field of a section's settings came from, for errors. */
static void origin(char *buf, size_t len, unsigned int from)
{
	if (from == FROM_BUILTIN)
		snprintf(buf, len, "built-in");
	else if (from == FROM_CLI)
		snprintf(buf, len, "command line");
	else
		snprintf(buf, len, "line %u", from);
}

/*
 * The settings section s ends up with (over the defaults d, whose
 * origins are dfrom): low below high, min at most max.
 */
static void check_combined(struct parser *ps, const struct section *s,
			   const struct as_settings *d,
			   const unsigned int *dfrom)
{
	struct as_settings e = *d;
	unsigned int from[AS_CONF_FIELDS];
	char o1[32], o2[32];

	memcpy(from, dfrom, sizeof(from));
	as_settings_overlay(&e, &s->s);
	for (int f = 0; f < AS_CONF_FIELDS; f++)
		if (s->s.set & AS_CONF_BIT(f))
			from[f] = s->from[f];
	if (e.low_pct >= e.high_pct) {
		origin(o1, sizeof(o1), from[AS_CONF_LOW]);
		origin(o2, sizeof(o2), from[AS_CONF_HIGH]);
		error_at(ps, s->line,
			 "%s: low %u (%s) must be below high %u (%s)",
			 s->header, e.low_pct, o1, e.high_pct, o2);
	}
	if (e.max_vcpus && e.max_vcpus < e.min_vcpus) {
		origin(o1, sizeof(o1), from[AS_CONF_MIN]);
		origin(o2, sizeof(o2), from[AS_CONF_MAX]);
		error_at(ps, s->line,
			 "%s: min %u (%s) must be at most max %u (%s)",
			 s->header, e.min_vcpus, o1, e.max_vcpus, o2);
	}
}

static void free_parser(struct parser *ps)
{
	for (size_t i = 0; i < ps->nall; i++) {
		free(ps->all[i].header);
		free(ps->all[i].pattern);
	}
	free(ps->all);
	for (size_t i = 0; i < ps->nexcl; i++)
		free(ps->excl[i].pattern);
	free(ps->excl);
}

/* The parse done: the configuration, or NULL (errors reported). */
static struct as_conf *build(struct parser *ps, const struct as_settings *base,
			     const struct as_settings *cli)
{
	struct section defaults = {.header = "[defaults]", .line = 0};
	unsigned int dfrom[AS_CONF_FIELDS] = {0};
	struct as_conf *c;
	size_t i, n = 0;

	/* base, [defaults], cli. */
	defaults.s = *base;
	for (i = 0; i < ps->nall; i++) {
		const struct section *s = &ps->all[i];

		if (s->pattern)
			continue;
		if (!defaults.line)
			defaults.line = s->line;
		for (int f = 0; f < AS_CONF_FIELDS; f++)
			if (s->s.set & AS_CONF_BIT(f))
				dfrom[f] = s->from[f];
		as_settings_overlay(&defaults.s, &s->s);
	}
	if (cli) {
		for (int f = 0; f < AS_CONF_FIELDS; f++)
			if (cli->set & AS_CONF_BIT(f))
				dfrom[f] = FROM_CLI;
		as_settings_overlay(&defaults.s, cli);
	}
	{
		/* Check the defaults on their own, then each section. */
		struct section none = defaults;

		none.s.set = 0;
		check_combined(ps, &none, &defaults.s, dfrom);
	}
	for (i = 0; i < ps->nall; i++)
		if (ps->all[i].pattern)
			check_combined(ps, &ps->all[i], &defaults.s, dfrom);
	if (ps->errors || ps->nomem)
		return NULL;
	c = calloc(1, sizeof(*c));
	if (!c) {
		ps->nomem = true;
		return NULL;
	}
	c->defaults = defaults.s;
	c->sec = calloc(ps->nall ? ps->nall : 1, sizeof(*c->sec));
	if (!c->sec) {
		free(c);
		ps->nomem = true;
		return NULL;
	}
	/* The [domain] sections move over; [defaults] ones are freed. */
	for (i = 0; i < ps->nall; i++) {
		if (ps->all[i].pattern) {
			c->sec[n++] = ps->all[i];
		} else {
			free(ps->all[i].header);
		}
	}
	c->nsec = n;
	free(ps->all);
	ps->all = NULL;
	ps->nall = 0;
	c->excl = ps->excl;
	c->nexcl = ps->nexcl;
	ps->excl = NULL;
	ps->nexcl = 0;
	return c;
}

/* Parse the text of f (name: what errors call it) over base and cli. */
static int parse_file(const char *name, FILE *f, const struct as_settings *base,
		      const struct as_settings *cli, struct as_conf **out,
		      as_conf_report_fn report, void *ctx)
{
	struct parser ps = {
		.name = name,
		.f = f,
		.cur_i = NO_SECTION,
		.report = report,
		.ctx = ctx,
	};
	struct as_conf *c;
	int line;

	line = ini_parse_stream(read_line, &ps, on_key, &ps);
	if (line > 0 && !(ps.stop && (unsigned int)line >= ps.line))
		error_at(&ps, (unsigned int)line,
			 "syntax error (expected [SECTION], KEY = VALUE or a "
			 "comment; the first such line)");
	else if (line < 0)
		ps.nomem = true;
	if (!ps.stop && ferror(f))
		error_at(&ps, 0, "cannot read: %s", strerror(errno));
	free(ps.text);
	c = build(&ps, base, cli);
	free_parser(&ps);
	if (ps.nomem) {
		as_conf_free(c);
		return -ENOMEM;
	}
	if (!c)
		return -EINVAL;
	*out = c;
	return 0;
}

int as_conf_parse(const char *name, const char *text, size_t len,
		  const struct as_settings *base, const struct as_settings *cli,
		  struct as_conf **out, as_conf_report_fn report, void *ctx)
{
	/* fmemopen() refuses an empty buffer: an empty text is no line. */
	FILE *f = fmemopen((void *)(len ? text : "\n"), len ? len : 1, "r");
	int err;

	if (!f)
		return -ENOMEM;
	err = parse_file(name, f, base, cli, out, report, ctx);
	fclose(f);
	return err;
}

int as_conf_load(const char *path, const struct as_settings *base,
		 const struct as_settings *cli, struct as_conf **out,
		 as_conf_report_fn report, void *ctx)
{
	struct stat st;
	char *msg;
	FILE *f;
	int err = 0, fd;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		err = -errno;
	else if (!S_ISREG(st.st_mode))
		err = -EINVAL;
	else if (st.st_size > AS_CONF_FILE_MAX)
		err = -EFBIG;
	f = err ? NULL : fdopen(fd, "r");
	if (!err && !f)
		err = -errno;
	if (err) {
		close(fd);
		if (report && asprintf(&msg, "%s: cannot read: %s", path,
				       err == -EINVAL  ? "not a regular file"
				       : err == -EFBIG ? "larger than 1 MiB"
						       : strerror(-err)) >= 0) {
			report(ctx, msg);
			free(msg);
		}
		return err;
	}
	err = parse_file(path, f, base, cli, out, report, ctx);
	fclose(f);
	return err;
}
int as_conf_reload(struct as_conf **conf, const char *path,
		   const struct as_settings *base,
		   const struct as_settings *cli, as_conf_report_fn report,
		   void *ctx)
{
	struct as_conf *c;
	int err;

	err = as_conf_load(path, base, cli, &c, report, ctx);
	if (err)
		return err;
	as_conf_free(*conf);
	*conf = c;
	return 0;
}

void as_conf_free(struct as_conf *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nsec; i++) {
		free(c->sec[i].header);
		free(c->sec[i].pattern);
	}
	free(c->sec);
	for (size_t i = 0; i < c->nexcl; i++)
		free(c->excl[i].pattern);
	free(c->excl);
	free(c);
}

void as_conf_resolve(const struct as_conf *c, const char *name,
		     struct as_conf_domain *r)
{
	const struct section *chosen = NULL;
	size_t i;

	*r = (struct as_conf_domain){.s = c->defaults};
	for (i = 0; i < c->nexcl; i++) {
		if (fnmatch(c->excl[i].pattern, name, 0) == 0) {
			r->excluded = true;
			r->exclude = c->excl[i].pattern;
			r->line = c->excl[i].line;
			return;
		}
	}
	for (i = 0; i < c->nsec && !chosen; i++)
		if (!c->sec[i].glob && !strcmp(c->sec[i].pattern, name))
			chosen = &c->sec[i];
	for (i = 0; i < c->nsec && !chosen; i++)
		if (c->sec[i].glob && fnmatch(c->sec[i].pattern, name, 0) == 0)
			chosen = &c->sec[i];
	if (!chosen)
		return;
	as_settings_overlay(&r->s, &chosen->s);
	r->pattern = chosen->pattern;
	r->line = chosen->line;
}

struct check_out {
	FILE *out;
	unsigned int errors;
};

static void check_report(void *ctx, const char *msg)
{
	struct check_out *co = ctx;

	co->errors++;
	fprintf(co->out, "%s\n", msg);
}

int as_conf_check(const char *path, const struct as_settings *base,
		  const struct as_settings *cli, FILE *out)
{
	struct check_out co = {out, 0};
	struct as_conf *c = NULL;
	int err;

	err = as_conf_load(path, base, cli, &c, check_report, &co);
	as_conf_free(c);
	if (err == -ENOENT)
		fprintf(out, "%s: cannot read: %s\n", path, strerror(ENOENT));
	else if (err == -ENOMEM)
		fprintf(out, "%s: out of memory\n", path);
	if (!err)
		fprintf(out, "%s: OK\n", path);
	else if (co.errors)
		fprintf(out, "%s: %u error%s\n", path, co.errors,
			co.errors == 1 ? "" : "s");
	return err ? 1 : 0;
}
