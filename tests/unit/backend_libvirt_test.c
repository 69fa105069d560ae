// SPDX-License-Identifier: MIT
/*
 * Host tests of the autoscaler's libvirt backend (tools/backend_libvirt.c)
 * against libvirt's own in-library test driver (test:///default: a running
 * domain "test", id 1, 2 vCPUs live, at most 2), no libvirtd needed: open
 * and its errors (a libvirtd that never answers included), which domains the
 * backend manages (by UUID or domid, never by name, the domid always checked),
 * live vCPU changes as libvirt itself then reports them, and the refusals with
 * libvirt's own message.  The real libxl driver is exercised under Xen by the
 * autoscale-libvirt scenario (tests/xen/autoscale-libvirt.sh).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cmocka.h>
#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>

#include "scale_backend.h"

#define TEST_URI "test:///default"
#define TEST_DOM "test" /* the test driver's running domain */
#define TEST_DOMID 1
#define TEST_MAX_VCPUS 2
#define NO_DOMID 999
#define TIMEOUT_MS 30000
#define HUNG_TIMEOUT_MS 300
#define XS_DOMID 3 /* a domain of xenstore's that libvirt does not know */
#define OTHER_UUID "11111111-2222-4333-8444-555555555555"
#define ERR_LEN 256
#define LOG_LEN 4096
/* A persistent domain of the test driver that is not running. */
#define STOPPED_DOM "smpalt-stopped"
#define STOPPED_XML                                        \
	"<domain type='test'><name>" STOPPED_DOM "</name>" \
	"<memory>8192</memory><vcpu>2</vcpu>"              \
	"<os><type>hvm</type></os></domain>"

/* The test's own connection: libvirt's view, to check the backend by. */
static virConnectPtr check_conn;
/* The UUID of the test driver's domain "test". */
static char test_uuid[VIR_UUID_STRING_BUFLEN];

static void quiet(void *user, virErrorPtr e)
{
	(void)user;
	(void)e;
}

/* The live vCPU count libvirt reports for a domain. */
static int live_vcpus(const char *name)
{
	virDomainPtr d = virDomainLookupByName(check_conn, name);
	int n;

	assert_non_null(d);
	n = virDomainGetVcpusFlags(d, VIR_DOMAIN_AFFECT_LIVE);
	virDomainFree(d);
	return n;
}

static void set_live_vcpus(const char *name, unsigned int n)
{
	virDomainPtr d = virDomainLookupByName(check_conn, name);

	assert_non_null(d);
	assert_int_equal(virDomainSetVcpusFlags(d, n, VIR_DOMAIN_AFFECT_LIVE),
			 0);
	virDomainFree(d);
}

static int setup(void **state)
{
	char err[ERR_LEN] = "";
	struct scale_backend *b = scale_backend_libvirt_open(
		TEST_URI, TIMEOUT_MS, err, sizeof(err));

	if (!b) {
		fprintf(stderr, "cannot open %s: %s\n", TEST_URI, err);
		return -1;
	}
	*state = b;
	set_live_vcpus(TEST_DOM, TEST_MAX_VCPUS);
	return 0;
}

static int teardown(void **state)
{
	struct scale_backend *b = *state;

	b->close(b);
	set_live_vcpus(TEST_DOM, TEST_MAX_VCPUS);
	return 0;
}

/*
 * Run set_vcpus with stderr going to a file, and return what the backend
 * logged there in log.
 */
static int set_vcpus_logged(struct scale_backend *b,
			    const struct scale_domain *dom, unsigned int n,
			    bool *done, char *log, size_t len)
{
	FILE *f = tmpfile();
	int saved, rc;
	size_t got;

	assert_non_null(f);
	fflush(stderr);
	saved = dup(STDERR_FILENO);
	assert_true(saved >= 0);
	assert_true(dup2(fileno(f), STDERR_FILENO) >= 0);
	rc = b->set_vcpus(b, dom, n, done);
	fflush(stderr);
	assert_true(dup2(saved, STDERR_FILENO) >= 0);
	close(saved);
	rewind(f);
	got = fread(log, 1, len - 1, f);
	log[got] = '\0';
	fclose(f);
	return rc;
}

static void open_names_a_uri_no_driver_handles(void **state)
{
	char err[ERR_LEN] = "";
	struct scale_backend *b;

	(void)state;
	b = scale_backend_libvirt_open("nosuchdriver:///system", TIMEOUT_MS,
				       err, sizeof(err));
	assert_null(b);
	assert_non_null(
		strstr(err, "cannot connect to nosuchdriver:///system"));
}

/*
 * A libvirtd that accepts the connection and never answers: the backend
 * gives up after its timeout with a message saying so, instead of hanging.
 */
static void open_gives_up_on_a_libvirtd_that_never_answers(void **state)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	char dir[] = "/tmp/smpalt-lv-XXXXXX", uri[ERR_LEN], err[ERR_LEN] = "";
	struct scale_backend *b;
	int fd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/sock", dir);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(fd, 1), 0); /* accepted by the kernel, then
					     * nothing is ever read */
	snprintf(uri, sizeof(uri), "test+unix:///default?socket=%s",
		 sa.sun_path);
	b = scale_backend_libvirt_open(uri, HUNG_TIMEOUT_MS, err, sizeof(err));
	assert_null(b);
	assert_non_null(strstr(err, "no answer within the timeout"));
	close(fd);
	unlink(sa.sun_path);
	rmdir(dir);
}

static void backend_is_named_libvirt(void **state)
{
	struct scale_backend *b = *state;

	assert_string_equal(b->name, "libvirt");
	assert_non_null(b->manages);
	assert_non_null(b->set_vcpus);
	assert_non_null(b->close);
}

static void manages_a_domain_libvirt_knows_by_uuid_or_id(void **state)
{
	struct scale_backend *b = *state;
	struct scale_domain by_uuid = {TEST_DOM, test_uuid, TEST_DOMID};
	struct scale_domain by_id = {TEST_DOM, "", TEST_DOMID};
	struct scale_domain nameless = {NULL, NULL, TEST_DOMID};

	assert_int_equal(b->manages(b, &by_uuid), 1);
	assert_int_equal(b->manages(b, &by_id), 1);
	assert_int_equal(b->manages(b, &nameless), 1);
}

static void does_not_manage_a_domain_libvirt_does_not_know(void **state)
{
	struct scale_backend *b = *state;
	struct scale_domain other = {"no-such-domain", OTHER_UUID, NO_DOMID};
	struct scale_domain by_id = {NULL, "", NO_DOMID};

	assert_int_equal(b->manages(b, &other), 0);
	assert_int_equal(b->manages(b, &by_id), 0);
}

/*
 * xenstore's domain 3 is named "test" like libvirt's domain 1: a name is
 * no identity.  Neither is a UUID that libvirt holds under another domid.
 */
static void same_name_or_uuid_under_another_domid_is_not_managed(void **state)
{
	struct scale_backend *b = *state;
	struct scale_domain same_name = {TEST_DOM, "", XS_DOMID};
	struct scale_domain same_name_uuid = {TEST_DOM, OTHER_UUID, XS_DOMID};
	struct scale_domain same_uuid = {TEST_DOM, test_uuid, XS_DOMID};
	char log[LOG_LEN];
	bool done = true;

	assert_int_equal(b->manages(b, &same_name), 0);
	assert_int_equal(b->manages(b, &same_name_uuid), 0);
	assert_int_equal(b->manages(b, &same_uuid), 0);
	assert_int_equal(
		set_vcpus_logged(b, &same_uuid, 1, &done, log, sizeof(log)),
		-ENOENT);
	assert_false(done);
	assert_int_equal(live_vcpus(TEST_DOM), TEST_MAX_VCPUS); /* untouched */
	assert_non_null(strstr(log, "has no domain test with id 3 and uuid "));
}

static void set_vcpus_down_and_up_is_live_and_synchronous(void **state)
{
	struct scale_backend *b = *state;
	struct scale_domain dom = {TEST_DOM, test_uuid, TEST_DOMID};
	bool done = false;

	assert_int_equal(b->set_vcpus(b, &dom, 1, &done), 0);
	assert_true(done);
	assert_int_equal(live_vcpus(TEST_DOM), 1);

	done = false;
	assert_int_equal(b->set_vcpus(b, &dom, 2, &done), 0);
	assert_true(done);
	assert_int_equal(live_vcpus(TEST_DOM), 2);
}

static void set_vcpus_by_domid_alone(void **state)
{
	struct scale_backend *b = *state;
	struct scale_domain dom = {NULL, "", TEST_DOMID};
	bool done = false;

	assert_int_equal(b->set_vcpus(b, &dom, 1, &done), 0);
	assert_true(done);
	assert_int_equal(live_vcpus(TEST_DOM), 1);
}

static void
set_vcpus_over_the_maximum_is_refused_with_libvirts_message(void **state)
{
	struct scale_backend *b = *state;
	struct scale_domain dom = {TEST_DOM, test_uuid, TEST_DOMID};
	char log[LOG_LEN];
	bool done = true;
	int rc;

	rc = set_vcpus_logged(b, &dom, TEST_MAX_VCPUS + 1, &done, log,
			      sizeof(log));
	assert_int_equal(rc, -EINVAL);
	assert_false(done);
	assert_int_equal(live_vcpus(TEST_DOM), TEST_MAX_VCPUS);
	/* One line naming the domain, the count and libvirt's reason. */
	assert_non_null(strstr(log, "libvirt: " TEST_DOM " (id 1): setting 3 "
				    "live vCPUs: "));
	assert_non_null(strstr(log, "(3 > 2)"));
	assert_ptr_equal(strchr(log, '\n'), log + strlen(log) - 1);
}

static void set_vcpus_of_an_unknown_domain_is_enoent(void **state)
{
	struct scale_backend *b = *state;
	struct scale_domain dom = {"no-such-domain", "", NO_DOMID};
	char log[LOG_LEN];
	bool done = true;

	assert_int_equal(set_vcpus_logged(b, &dom, 1, &done, log, sizeof(log)),
			 -ENOENT);
	assert_false(done);
	assert_non_null(
		strstr(log, "has no domain no-such-domain with id 999"));
}

static void
set_vcpus_of_a_stopped_domain_fails_and_changes_nothing(void **state)
{
	struct scale_backend *b = *state;
	virDomainPtr d = virDomainDefineXML(check_conn, STOPPED_XML);
	char uuid[VIR_UUID_STRING_BUFLEN], log[LOG_LEN];
	struct scale_domain dom = {STOPPED_DOM, uuid, 0};
	bool done = true;
	int rc;

	assert_non_null(d);
	assert_int_equal(virDomainGetUUIDString(d, uuid), 0);
	rc = set_vcpus_logged(b, &dom, 1, &done, log, sizeof(log));
	assert_true(rc < 0);
	assert_false(done);
	assert_non_null(strstr(log, STOPPED_DOM));
	assert_int_equal(virDomainGetVcpusFlags(d, VIR_DOMAIN_AFFECT_CONFIG),
			 2);
	assert_int_equal(virDomainUndefine(d), 0);
	virDomainFree(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(open_names_a_uri_no_driver_handles),
		cmocka_unit_test(
			open_gives_up_on_a_libvirtd_that_never_answers),
		cmocka_unit_test_setup_teardown(backend_is_named_libvirt, setup,
						teardown),
		cmocka_unit_test_setup_teardown(
			manages_a_domain_libvirt_knows_by_uuid_or_id, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			same_name_or_uuid_under_another_domid_is_not_managed,
			setup, teardown),
		cmocka_unit_test_setup_teardown(
			does_not_manage_a_domain_libvirt_does_not_know, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			set_vcpus_down_and_up_is_live_and_synchronous, setup,
			teardown),
		cmocka_unit_test_setup_teardown(set_vcpus_by_domid_alone, setup,
						teardown),
		cmocka_unit_test_setup_teardown(
			set_vcpus_over_the_maximum_is_refused_with_libvirts_message,
			setup, teardown),
		cmocka_unit_test_setup_teardown(
			set_vcpus_of_an_unknown_domain_is_enoent, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			set_vcpus_of_a_stopped_domain_fails_and_changes_nothing,
			setup, teardown),
	};
	int rc;

	virSetErrorFunc(NULL, quiet);
	check_conn = virConnectOpen(TEST_URI);
	if (!check_conn) {
		fprintf(stderr, "cannot open %s\n", TEST_URI);
		return 1;
	}
	{
		virDomainPtr d = virDomainLookupByName(check_conn, TEST_DOM);

		if (!d || virDomainGetUUIDString(d, test_uuid)) {
			fprintf(stderr, "%s has no domain %s\n", TEST_URI,
				TEST_DOM);
			return 1;
		}
		virDomainFree(d);
	}
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	virConnectClose(check_conn);
	return rc;
}
