# Benchmarks. Included by the top-level Makefile after mk/engine.mk
# (ENG_BENCH), mk/guest.mk (GUEST_ELF) and mk/tools.mk (AUTOSCALER).
#
#   make bench              one Xen boot for the in-guest benchmark, the
#                           smpalt vcpu-set scenario, stock Linux's (the
#                           stock control of the first of KVERS: make linux
#                           STOCK=1) and the patched Linux guest of each
#                           of KVERS, then
#                           the host benchmark; results/<timestamp>/
#                           (CSVs, PNG plots, summary.md), summary printed
#   make bench ROUNDS=N     N rounds of vcpu-set 2 1 4 1 (default 5)
#   make bench KVERS="6.1 7.2"  the patched Linux versions measured
#                           (default 6.1 6.12 7.2; each built first, as by
#                           make linux KVER=...); an entry KVER-CONFIG is
#                           that version in a configuration of make linux
#                           CONFIG=: KVERS="6.1 6.1-debug 6.1-debian"
#                           measures the three configurations of 6.1;
#                           an entry KVER:pvh measures that version's
#                           guest as a PVH domU (one build serves both):
#                           KVERS="7.2 7.2:pvh" PV and PVH side by side
#   make bench TYPES=pv     the smpalt guest's in-guest benchmark as those
#                           guest types only (default "pv pvh": PV and PVH
#                           side by side, one guest boot each, about half a
#                           minute of TCG time more than PV alone)
#   make bench BENCH_SCENARIOS="bench-linux-smpalt"  only those scenarios
#                           (bench-debian-real: the real programs in the
#                           Debian guest, measured when make debian-domu
#                           has built its image, in a Xen 4.20 boot of
#                           their own)
#   make bench-report RESULTS=results/<timestamp>
#                           redo the CSVs, plots and summary of a run
#   make bench-real         on a real Xen dom0, as root: the Linux rows
#                           with hardware figures, the patched guest
#                           (PATCHED_KERNEL=, default make linux's) against
#                           the stock one (STOCK_KERNEL=, default the stock
#                           control, make linux STOCK=1: the same tree and
#                           configuration without the series; both built
#                           first when not given); with the Debian guest
#                           of make debian-domu when its image is built,
#                           the real-program rows too; results/real-<timestamp>/
#   make test-bench-real    make bench-real's command run in the harness's
#                           systemd dom0 (Debian 12 under Xen in QEMU)
# See docs/benchmarks.md.

.PHONY: bench bench-report bench-real bench-real-guests test-bench-real

ROUNDS  ?=
# Every Linux version of scripts/lib/matrix.conf unless given.
KVERS   ?= $(shell bash $(TOP)/scripts/lib/matrix.sh linux-versions)
# The smpalt guest's types for the in-guest benchmark (bench-locks).
TYPES   ?= pv pvh
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

# The patched Linux guest of each version of KVERS, built as by make linux,
# and the stock control of the first. An entry KVER-CONFIG (6.1-debug) is
# that version in that configuration; a guest type after a colon (7.2:pvh)
# changes nothing here; scripts/run/bench.sh -c checks every entry first.
.PHONY: bench-linux
bench-linux:
	@KVERS='$(KVERS)' TYPES='$(TYPES)' bash $(TOP)/scripts/run/bench.sh -c
	@stock=1 built=; for v in $(KVERS); do \
		v=$${v%%:*}; \
		case " $$built " in *" $$v "*) continue ;; esac; \
		built="$$built $$v"; \
		case $$v in *-*) k=$${v%%-*} c=$${v#*-} ;; *) k=$$v c=default ;; esac; \
		for s in 0 $$stock; do \
			KVER=$$k CONFIG=$$c STOCK=$$s bash $(TOP)/scripts/build/build-linux.sh || exit 1; \
		done; \
		stock=; \
	done

# The Linux guests only for a run with a Linux scenario (bench-linux-*):
# make bench BENCH_SCENARIOS=bench-locks builds no kernel.
BENCH_LINUX := $(if $(BENCH_SCENARIOS),$(if $(filter bench-linux-%,$(BENCH_SCENARIOS)),bench-linux),bench-linux)
bench: deps $(GUEST_ELF) $(AUTOSCALER) $(ENG_BENCH) $(XS_STAMP) $(BENCH_LINUX)
	@KVERS='$(KVERS)' TYPES='$(TYPES)' BENCH_SCENARIOS='$(BENCH_SCENARIOS)' \
		XS_STAMP=$(XS_STAMP) bash $(TOP)/scripts/run/bench.sh -g $(GUEST_ELF) \
		-H $(ENG_BENCH) $(if $(ROUNDS),-r $(ROUNDS))

bench-report:
	@python3 $(TOP)/scripts/report/bench-report.py $(RESULTS)

# --- make bench-real (scripts/run/bench-real.sh): the kernels of the two
# guests, by default the patched guest of make linux and its stock
# control (make linux STOCK=1), both built first.
PATCHED_KERNEL ?=
STOCK_KERNEL   ?=
BENCH_REAL := $(TOP)/build/bench-real
BENCH_PATCHED = $(or $(PATCHED_KERNEL),$(CACHE)/linux/out/vmlinuz)
BENCH_STOCK = $(or $(STOCK_KERNEL),$(CACHE)/linux/stock/out/vmlinuz)

# The two guests, each a kernel beside its initramfs, where
# scripts/run/bench-real.sh looks for them.
bench-real-guests: $(XS_STAMP)
	@$(if $(PATCHED_KERNEL),,$(MAKE) --no-print-directory linux KVER=6.1 CONFIG=default STOCK=0)
	@$(if $(STOCK_KERNEL),,$(MAKE) --no-print-directory linux KVER=6.1 CONFIG=default STOCK=1)
	@[ -f "$(BENCH_PATCHED)" ] || { echo "bench-real: no patched kernel $(BENCH_PATCHED) (PATCHED_KERNEL=)" >&2; exit 2; }
	@[ -f "$(BENCH_STOCK)" ] || { echo "bench-real: no stock kernel $(BENCH_STOCK) (STOCK_KERNEL=)" >&2; exit 2; }
	@bash $(TOP)/scripts/build/fetch-xen.sh
	@bash $(TOP)/scripts/build/mk-linux-smpalt-domu.sh -k $(BENCH_PATCHED) -o $(BENCH_REAL)/patched
	@bash $(TOP)/scripts/build/mk-linux-domu.sh -k $(BENCH_STOCK) -o $(BENCH_REAL)/stock
	@rm -f $(BENCH_REAL)/stock/vmlinuz && cp -L $(BENCH_STOCK) $(BENCH_REAL)/stock/vmlinuz
	@echo "bench-real: guests in $(BENCH_REAL): patched $(BENCH_PATCHED), stock $(BENCH_STOCK)"

bench-real: bench-real-guests
	@bash $(TOP)/scripts/run/bench-real.sh -x $(XS_STAMP) $(if $(ROUNDS),-r $(ROUNDS)) \
		$(if $(wildcard $(CACHE)/debian-domu/disk.img),-d $(CACHE)/debian-domu)

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
