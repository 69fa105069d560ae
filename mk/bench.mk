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
#   make bench-real         on a real Xen dom0, as root: the Linux rows
#                           with hardware figures, the patched guest
#                           (PATCHED=, default make linux's kernel) against
#                           the stock one (STOCK=); results/real-<timestamp>/
#   make test-bench-real    make bench-real's command run in the harness's
#                           systemd dom0 (Debian 12 under Xen in QEMU)
# See docs/benchmarks.md.

.PHONY: bench bench-report bench-real bench-real-guests test-bench-real

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

# --- make bench-real (scripts/run/bench-real.sh): the kernels of the two
# guests; the stock one is this tree's configuration without the series
# once built there, else Debian's 6.1 (the dom0 kernel of the harness).
PATCHED ?= $(CACHE)/linux/out/vmlinuz
STOCK   ?= $(firstword $(wildcard $(CACHE)/linux/stock/out/vmlinuz) $(CACHE)/xen/vmlinuz)
BENCH_REAL := $(TOP)/build/bench-real

# The two guests, each a kernel beside its initramfs, where
# scripts/run/bench-real.sh looks for them.
bench-real-guests: $(XS_STAMP)
	@[ -f "$(PATCHED)" ] || { echo "bench-real: no patched kernel $(PATCHED) (make linux, or PATCHED=)" >&2; exit 2; }
	@bash $(TOP)/scripts/build/fetch-xen.sh
	@bash $(TOP)/scripts/build/mk-linux-smpalt-domu.sh -k $(PATCHED) -o $(BENCH_REAL)/patched
	@bash $(TOP)/scripts/build/mk-linux-domu.sh -o $(BENCH_REAL)/stock
	@[ -f "$(STOCK)" ] || { echo "bench-real: no stock kernel $(STOCK) (STOCK=)" >&2; exit 2; }
	@rm -f $(BENCH_REAL)/stock/vmlinuz && cp -L $(STOCK) $(BENCH_REAL)/stock/vmlinuz
	@echo "bench-real: guests in $(BENCH_REAL): patched $(PATCHED), stock $(STOCK)"

bench-real: bench-real-guests
	@bash $(TOP)/scripts/run/bench-real.sh -x $(XS_STAMP) $(if $(ROUNDS),-r $(ROUNDS))

# The proof in the harness: a copy of the tree with the guests and the
# stamper where make bench-real leaves them, carried to /root/smpalt of the
# systemd dom0 image, and tests/xen/bench-real.sh running the command there.
BENCH_REAL_TREE := $(BENCH_REAL)/tree
BENCH_REAL_LIMIT := 1800
test-bench-real: bench-real-guests
	@rm -rf $(BENCH_REAL_TREE) && mkdir -p $(BENCH_REAL_TREE)/build/bench-real
	@bash -c '. $(TOP)/scripts/lib/host.sh && copy_tree $(BENCH_REAL_TREE)'
	@cp -rL $(BENCH_REAL)/patched $(BENCH_REAL)/stock $(BENCH_REAL_TREE)/build/bench-real/
	@install -D -m 0755 $(XS_STAMP) $(BENCH_REAL_TREE)/build/gcc/bench/smpalt-xs-stamp
	@SMPALT_TREE=$(BENCH_REAL_TREE) XEN_SCENARIO_TIMEOUT=$(BENCH_REAL_LIMIT) \
		$(XEN_RUN) bench-real
