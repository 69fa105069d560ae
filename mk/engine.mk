# The alternatives engine's host programs: its benchmark, its demo and
# the site checker. Its unit tests are in mk/unit-tests.mk (ENG_TEST),
# its fuzzing in mk/fuzz.mk.
#
#   make check-sites      site checker on the test program (must pass), on
#                         the guest kernel (must pass), and on
#                         deliberately broken programs (must be refused);
#                         CHECK_ELF=path also checks that ELF (must pass);
#                         the last line is "N passed, N failed"
#   make bench-host       lock loops: SMP form, UP-patched, UP-only build;
#                         then the switch cost per site
#   make demo-host        the engine at work on a host program
#
# The two programs share their objects, in build/<compiler>/engine/.

.PHONY: check-sites bench-host demo-host

ENG_CFLAGS   := $(HOST_CFLAGS) -iquote $(ENG_DIR) -pthread
ENG_LDFLAGS  := -Wl,-T,$(ENG_HOST_LD) -pthread
ENG_HDRS     := $(TEST_HDRS) $(ENG_HOST_LD) $(TOP)/mk/engine.mk

ENG_OUT      := $(BUILD)/engine
ENG_BENCH    := $(ENG_OUT)/bench-host
ENG_DEMO     := $(ENG_OUT)/demo-host

all: $(ENG_BENCH) $(ENG_DEMO)

$(ENG_OUT)/%.o: $(TOP)/%.c $(ENG_HDRS)
	@mkdir -p $(@D)
	$(call msg,CC,$@)
	$(Q)$(CC) $(ENG_CFLAGS) -c $< -o $@

# The same workload built as a kernel without SMP (CONFIG_UP_ONLY).
$(ENG_OUT)/tests/unit/workload-uponly.o: $(ENG_DIR)/workload.c $(ENG_HDRS)
	@mkdir -p $(@D)
	$(call msg,CC,$@)
	$(Q)$(CC) $(ENG_CFLAGS) -DCONFIG_UP_ONLY -c $< -o $@

ENG_BENCH_OBJ := $(addprefix $(ENG_OUT)/,$(ENG_CORE:.c=.o) tests/bench/bench_synth.o \
	tests/unit/alt_host.o tests/unit/workload.o) \
	$(ENG_OUT)/tests/unit/workload-uponly.o

$(ENG_BENCH): $(ENG_BENCH_OBJ) $(ENG_OUT)/tests/bench/bench_host.o
	$(call msg,CCLD,$@)
	$(Q)$(CC) $(ENG_LDFLAGS) -o $@ $^

$(ENG_DEMO): $(ENG_BENCH_OBJ) $(ENG_OUT)/tests/bench/demo_host.o
	$(call msg,CCLD,$@)
	$(Q)$(CC) $(ENG_LDFLAGS) -o $@ $^

bench-host: $(ENG_BENCH)
	@$(ENG_BENCH)

demo-host: $(ENG_DEMO)
	@$(ENG_DEMO)

# Site checker: the good programs must pass, each broken one must fail.
ENG_BROKEN   := unrecorded-lock record-not-lock lock-recorded-twice \
	replacement-not-pic
ENG_BROKEN_ELF := $(addprefix $(ENG_OUT)/sites/,$(addsuffix .elf,$(ENG_BROKEN)))
CHECK_ELF    ?=

$(ENG_OUT)/sites/%.elf: $(ENG_DIR)/sites/%.c $(ENG_HDRS)
	@mkdir -p $(@D)
	$(call msg,CCLD,$@)
	$(Q)$(CC) $(ENG_CFLAGS) $(ENG_LDFLAGS) -o $@ $<

check-sites: $(ENG_TEST) $(GUEST_ELF) $(ENG_BROKEN_ELF)
	@python3 $(TOP)/scripts/check/check-sites.py --expect pass $(ENG_TEST) \
		--expect pass $(GUEST_ELF) \
		$(addprefix --expect fail ,$(ENG_BROKEN_ELF)) \
		$(if $(CHECK_ELF),--expect pass $(CHECK_ELF))
