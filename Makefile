# smpalt top-level Makefile.
#
#   make            build the guest kernel, host tests and dom0 tools
#   make demo       the main job (see README.md); GUEST=linux: with the
#                   patched Linux 6.1 guest (mk/demo.mk)
#   make test       every test: unit (gcc, clang, sanitizers), site checker,
#                   and the scenarios on real Xen inside QEMU
#   make test-unit  unit tests of the guest's code on the host, gcc and
#                   clang (seconds; CC=clang runs one compiler)
#   make test-xen   scenarios on real Xen (TESTS="a b" runs some)
#   make test-linux the patched Linux 6.1 guest: series checks, scenarios
#                   on real Xen (mk/linux-test.mk)
#   make test-linux-native  the patched Linux 7.2 booted natively in QEMU
#                   with KASAN and lockdep, a second CPU onlined and
#                   offlined (mk/linux-test.mk; opt-in, not in make test)
#   make bench-host host benchmarks of the lock paths and the switch cost
#   make bench      every benchmark: in-guest, vcpu-set vs stock Linux, host
#   make linux      Linux 6.1 PV domU with the series in patches/linux-6.1/
#                   (KVER=6.12 or KVER=7.2: that version's series, also for
#                   make test-linux; make upstream SIGNOFF="Name <addr>":
#                   the 7.2 series as mails in out/upstream/, the xen.git
#                   patch of patches/xen/ in out/upstream/xen/; CONFIG=debug
#                   or CONFIG=debian: the debug or Debian's configuration,
#                   also for make test-linux, which make test leaves out;
#                   STOCK=1: the stock control: docs/linux.md)
#   make V=1 ...    the full command of every build step instead of one
#                   short line a step (mk/quiet.mk)
#
# Objects of different compilers never mix: each compiler gets its own
# build folder, build/<compiler>/.

# CC= given (command line or environment): host test groups run under that
# compiler only; otherwise under gcc, then clang (mk/host-test.mk).
CC_GIVEN := $(filter-out default undefined,$(origin CC))
CC       ?= gcc
ifeq ($(origin CC),default)
CC       := gcc
endif
CC_NAME  := $(notdir $(firstword $(CC)))
TOP      := $(abspath .)
BUILD    := $(TOP)/build/$(CC_NAME)
CACHE    := $(TOP)/cache
OUT      := $(TOP)/out

WARN     := -Wall -Wextra -Werror
HOST_CFLAGS := -O2 -g $(WARN) -std=gnu11 -I$(TOP)/include
# AddressSanitizer and UndefinedBehaviorSanitizer; any report fails the run.
SAN_FLAGS   := -fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer
SAN_CFLAGS  := $(filter-out -O2,$(HOST_CFLAGS)) -O1 $(SAN_FLAGS)

# One short line a build step, V=1 for the full commands (mk/quiet.mk).
include mk/quiet.mk

.PHONY: all clean deps test test-unit test-xen bench-host bench demo
all:

deps:
	@bash scripts/build/install-deps.sh

include mk/host-test.mk
include mk/guest.mk
include mk/unit-tests.mk
include mk/engine.mk
include mk/tools.mk
include mk/xen.mk
include mk/linux-test.mk
include mk/bench.mk
include mk/demo.mk
include mk/fuzz.mk
include mk/install.mk
include mk/linux.mk

# Every host test program, built with $(CC).
all: $(addprefix $(TEST_OUT)/,$(HOST_TESTS))

# The guest's include graph runs one way, lib <- arch-xen <- drivers <-
# kernel, with no loop (docs/design.md, "Layers").
.PHONY: check-layers
check-layers:
	@bash scripts/check/check-layers.sh

# Every test that exists; the summary script adds up each part's
# "N passed, N failed" line and prints the total as the last line.
test: deps
	@bash scripts/run/run-all-tests.sh

clean:
	rm -rf build out

# The main job: the engine rewriting a host program (short), then the
# load-driven demo under real Xen inside QEMU (mk/demo.mk): the guest's
# vCPUs scaled by smpalt-autoscaler as its workload profile runs, live,
# ending with out/demo/<timestamp>/demo.png and a summary.
demo: deps
	@$(MAKE) --no-print-directory demo-host
	@$(MAKE) --no-print-directory demo-autoscale
