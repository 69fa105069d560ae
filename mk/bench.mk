# Benchmarks. Included by the top-level Makefile after mk/engine.mk
# (ENG_BENCH), mk/guest.mk (GUEST_ELF) and mk/tools.mk (AUTOSCALER).
#
#   make bench              one Xen boot for the in-guest benchmark, the
#                           smpalt vcpu-set scenario and stock Linux 6.1's,
#                           then the host benchmark; results/<timestamp>/
#                           (CSVs, PNG plots, summary.md), summary printed
#   make bench ROUNDS=N     N rounds of vcpu-set 2 1 4 1 (default 5)
#   make bench-report RESULTS=results/<timestamp>
#                           redo the CSVs, plots and summary of a run
# See docs/benchmarks.md.

.PHONY: bench bench-report

ROUNDS  ?=
RESULTS ?= $(TOP)/results/latest

# The dom0 event stamper of the reaction-time figures (tests/bench/xs_stamp.c):
# scripts/build/mkinitramfs.sh puts it in the dom0 image as
# /opt/smpalt/bin/smpalt-xs-stamp.
XS_STAMP := $(BUILD)/bench/smpalt-xs-stamp
all: $(XS_STAMP)
$(XS_STAMP): $(TOP)/tests/bench/xs_stamp.c $(TOP)/mk/bench.mk
	@mkdir -p $(@D)
	$(call msg,CCLD,$@)
	$(Q)$(CC) $(HOST_CFLAGS) -o $@ $< -lxenstore

bench: deps $(GUEST_ELF) $(AUTOSCALER) $(ENG_BENCH) $(XS_STAMP) linux
	@XS_STAMP=$(XS_STAMP) bash $(TOP)/scripts/run/bench.sh -g $(GUEST_ELF) \
		-H $(ENG_BENCH) $(if $(ROUNDS),-r $(ROUNDS))

bench-report:
	@python3 $(TOP)/scripts/report/bench-report.py $(RESULTS)
