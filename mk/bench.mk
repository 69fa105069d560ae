# Benchmarks. Included by the top-level Makefile after mk/engine.mk
# (ENG_BENCH), mk/guest.mk (GUEST_ELF) and mk/tools.mk (AUTOSCALER).
#
#   make bench              one Xen boot for the in-guest benchmark, the
#                           smpalt vcpu-set scenario, stock Linux 6.1's and
#                           the patched Linux guest of each of KVERS, then
#                           the host benchmark; results/<timestamp>/
#                           (CSVs, PNG plots, summary.md), summary printed
#   make bench ROUNDS=N     N rounds of vcpu-set 2 1 4 1 (default 5)
#   make bench KVERS="6.1 7.2"  the patched Linux versions measured
#                           (default 6.1 6.12 7.2; each built first, as by
#                           make linux KVER=...)
#   make bench BENCH_SCENARIOS="bench-linux-smpalt"  only those scenarios
#   make bench-report RESULTS=results/<timestamp>
#                           redo the CSVs, plots and summary of a run
# See docs/benchmarks.md.

.PHONY: bench bench-report

ROUNDS  ?=
KVERS   ?= 6.1 6.12 7.2
BENCH_SCENARIOS ?=
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

# The patched Linux guest of each version of KVERS, built as by make linux.
.PHONY: bench-linux
bench-linux:
	@for v in $(KVERS); do \
		KVER=$$v CONFIG=default bash $(TOP)/scripts/build/build-linux.sh || exit 1; \
	done

bench: deps $(GUEST_ELF) $(AUTOSCALER) $(ENG_BENCH) $(XS_STAMP) bench-linux
	@KVERS='$(KVERS)' BENCH_SCENARIOS='$(BENCH_SCENARIOS)' \
		XS_STAMP=$(XS_STAMP) bash $(TOP)/scripts/run/bench.sh -g $(GUEST_ELF) \
		-H $(ENG_BENCH) $(if $(ROUNDS),-r $(ROUNDS))

bench-report:
	@python3 $(TOP)/scripts/report/bench-report.py $(RESULTS)
