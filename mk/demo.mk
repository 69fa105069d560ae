# The load-driven demo. Included by the top-level Makefile after
# mk/guest.mk (GUEST_ELF) and mk/tools.mk (AUTOSCALER, exported for the
# dom0 initramfs), before mk/linux.mk (the linux target).
#
#   make demo-autoscale   Xen 4.17 in QEMU: a guest (vcpus=1, maxvcpus=4)
#                         runs the workload profile (include/smpalt/profile.h)
#                         while smpalt-autoscaler scales it; one line a
#                         second live, then out/demo/<timestamp>/demo.png,
#                         demo.csv and summary.txt
#                         (scripts/run/run-demo-autoscale.sh)
#   make demo-autoscale GUEST=linux [KVER=...]
#                         the same with the patched Linux guest (6.1 unless
#                         KVER= says; make linux first): busy loops in
#                         phases, scaled by Xen's CPU accounting
#                         (--signal xen)
#   make demo-autoscale ... TYPE=pvh
#                         either with a PVH guest (the Linux guest: a
#                         version whose series serves PVH, KVER=6.12 or 7.2)
#   make demo-report DEMO=out/demo/<timestamp>
#                         redo the plot and summary of a run
# `make demo` runs demo-host, then this (GUEST= passed on).

.PHONY: demo-autoscale demo-report demo-check-guest

DEMO ?= $(TOP)/out/demo/latest
# The demo's guest: smpalt (the default) or linux.
GUEST ?= smpalt
DEMO_GUESTS := smpalt linux
# The Linux guest needs its kernel; the smpalt kernel and the autoscaler
# are wanted by both (the dom0 image installs them together).
DEMO_GUEST_DEPS_smpalt :=
DEMO_GUEST_DEPS_linux := linux

demo: demo-check-guest

demo-check-guest:
	@case ' $(DEMO_GUESTS) ' in *' $(GUEST) '*) ;; \
	*) echo "demo: error: unknown GUEST='$(GUEST)' (one of: $(DEMO_GUESTS))" >&2; \
	   exit 2 ;; esac

demo-autoscale: demo-check-guest deps $(GUEST_ELF) $(DOM0_AUTOSCALER) $(DEMO_GUEST_DEPS_$(GUEST))
	@KVER=$(KVER) bash $(TOP)/scripts/run/run-demo-autoscale.sh -G $(GUEST) -T $(TYPE) -g $(GUEST_ELF)

demo-report:
	@python3 $(TOP)/scripts/report/demo-report.py $(DEMO)
