# Tests of the patched Linux 6.1 guest (patches/linux-6.1/, `make linux`).
#
#   make test-linux               make linux; every patch of the series
#                                 applies in order and is checkpatch-clean;
#                                 the guest's initramfs; every scenario in
#                                 tests/linux/ on real Xen in QEMU, one boot
#   make test-linux TESTS="a b"   the same with some of the scenarios
#   make test-linux BUSY=1        the scenarios beside one CPU hog per core
# Results in out/linux/<timestamp>/ (out/linux/latest); scripts/test-linux.sh
# says what each step checks.

.PHONY: test-linux

test-linux: deps
	@XEN_BUSY=$(BUSY) bash $(TOP)/scripts/test-linux.sh $(TESTS)
