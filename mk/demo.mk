# The load-driven demo. Included by the top-level Makefile after
# mk/guest.mk (GUEST_ELF) and mk/tools.mk (AUTOSCALER, exported for the
# dom0 initramfs).
#
#   make demo-autoscale   Xen 4.17 in QEMU: a guest (vcpus=1, maxvcpus=4)
#                         runs the workload profile (include/smpalt/profile.h)
#                         while smpalt-autoscaler scales it; one line a
#                         second live, then out/demo/<timestamp>/demo.png,
#                         demo.csv and summary.txt
#                         (scripts/run-demo-autoscale.sh)
#   make demo-report DEMO=out/demo/<timestamp>
#                         redo the plot and summary of a run
# `make demo` runs demo-host, then this.

.PHONY: demo-autoscale demo-report

DEMO ?= $(TOP)/out/demo/latest

demo-autoscale: deps $(GUEST_ELF) $(AUTOSCALER)
	@bash $(TOP)/scripts/run-demo-autoscale.sh -g $(GUEST_ELF)

demo-report:
	@python3 $(TOP)/scripts/demo-report.py $(DEMO)
