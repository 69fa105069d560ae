# Tests of the patched Linux guest (patches/linux-KVER/, `make linux`), for
# KVER=6.1 (the default), 6.12 or 7.2 (mk/linux.mk).
#
#   make test-linux [KVER=...]    make linux KVER=...; every patch of the
#                                 series applies in order and is clean
#                                 under checkpatch --strict; the dom0
#                                 image carries that version's kernel;
#                                 the guest's initramfs; every scenario in
#                                 tests/linux/ on real Xen in QEMU, one boot
#   make test-linux TESTS="a b"   the same with some of the scenarios
#   make test-linux BUSY=1        the scenarios beside one CPU hog per core
#   make test-linux CONFIG=debug  the same with the debug configuration
#                                 (make linux CONFIG=debug), every scenario
#                                 including those that need it ("# config:
#                                 debug debian": linux-modules,
#                                 linux-text-patchers),
#                                 which the default configuration leaves out
#   make test-linux CONFIG=debian the same with Debian's configuration
#   make test-linux TYPE=pvh      the scenarios with PVH guests (mk/xen.mk)
# Results in out/linux/<timestamp>/ (out/linux/latest); scripts/run/test-linux.sh
# says what each step checks.

.PHONY: test-linux

test-linux: deps
	@KVER=$(KVER) CONFIG=$(CONFIG) STOCK= XEN_BUSY=$(BUSY) GUEST_TYPE=$(TYPE) bash $(TOP)/scripts/run/test-linux.sh $(TESTS)

# make test-linux-native [KVER=7.2]: the patched Linux booted natively in
# QEMU, not under Xen, with KASAN (inline checks) and lockdep: UP text at
# boot with one CPU of two brought up, the second onlined (SMP text) and
# offlined again (natively the text stays SMP), no report in the console
# log (scripts/run/test-linux-native.sh). Its own
# configuration, make linux CONFIG=native (patches/linux-7.2/native.config);
# only 7.2 has one, and the target defaults to it. Opt-in: make test
# leaves it out (a cold KASAN build and a slow TCG boot).
.PHONY: test-linux-native
test-linux-native: NATIVE_KVER := $(if $(filter command line environment,$(origin KVER)),$(KVER),7.2)
test-linux-native: deps
	@KVER=$(NATIVE_KVER) bash $(TOP)/scripts/run/test-linux-native.sh
