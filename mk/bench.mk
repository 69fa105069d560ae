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

bench: deps $(GUEST_ELF) $(AUTOSCALER) $(ENG_BENCH)
	@bash $(TOP)/scripts/bench.sh -g $(GUEST_ELF) -H $(ENG_BENCH) \
		$(if $(ROUNDS),-r $(ROUNDS))

bench-report:
	@python3 $(TOP)/scripts/bench-report.py $(RESULTS)
