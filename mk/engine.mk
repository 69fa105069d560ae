# Engine, host tests, site checker, host benchmarks.
#
#   make test-unit        cmocka tests of the engine on this host's own text
#                         (build/<compiler>/engine/); CC=clang works too
#   make test-sanitize    the same tests under ASan+UBSan
#                         (build/<compiler>-sanitize/engine/)
#   make check-sites      site checker on the test program (must pass), on
#                         the guest kernel if built (must pass), and on
#                         deliberately broken programs (must be refused);
#                         CHECK_ELF=path also checks that ELF (must pass)
#   make bench-host       lock loops: SMP form, UP-patched, UP-only build;
#                         then the switch cost per site
#   make demo-host        the engine at work on a host program
#
# Each test target ends with "N passed, N failed".  Fuzzing and the
# decoder's cross-check against objdump: mk/fuzz.mk.
# include/ holds the guest's own string.h and errno.h: host programs reach
# our headers with -iquote so that the C library's are not shadowed.

.PHONY: test-unit test-sanitize check-sites bench-host demo-host engine-host

ENG_DIR      := $(TOP)/tests/unit
ENG_HOST_LD  := $(ENG_DIR)/host.ld
ENG_CFLAGS   := $(filter-out -I$(TOP)/include,$(HOST_CFLAGS)) \
	-I$(TOP)/include -iquote $(ENG_DIR) -iquote $(TOP)/tests/bench -pthread
ENG_LDFLAGS  := -Wl,-T,$(ENG_HOST_LD) -pthread
ENG_SAN      := -fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer
ENG_HDRS     := $(wildcard $(TOP)/include/smpalt/alt*.h) $(TOP)/include/smpalt/atomic.h \
	$(TOP)/include/smpalt/spinlock.h $(TOP)/include/smpalt/refcount.h \
	$(wildcard $(ENG_DIR)/*.h $(TOP)/tests/bench/*.h) $(ENG_HOST_LD) \
	$(TOP)/mk/engine.mk

ENG_CORE     := arch-xen/alt_core.c arch-xen/alt_insn.c
ENG_TEST_SRC := $(ENG_CORE) tests/unit/alt_host.c tests/unit/workload.c \
	tests/unit/test_main.c tests/unit/test_insn.c tests/unit/test_padding.c \
	tests/unit/test_refuse.c tests/unit/test_switch.c \
	tests/unit/test_features.c tests/unit/test_primitives.c

ENG_OUT      := $(BUILD)/engine
ENG_SAN_OUT  := $(TOP)/build/$(CC_NAME)-sanitize/engine
ENG_TEST     := $(ENG_OUT)/alt-tests
ENG_SAN_TEST := $(ENG_SAN_OUT)/alt-tests
ENG_BENCH    := $(ENG_OUT)/bench-host
ENG_DEMO     := $(ENG_OUT)/demo-host

engine-host: $(ENG_TEST) $(ENG_BENCH) $(ENG_DEMO)
all: engine-host

# --- objects: one folder per flavour -----------------------------------
$(ENG_OUT)/%.o: $(TOP)/%.c $(ENG_HDRS)
	@mkdir -p $(@D)
	$(CC) $(ENG_CFLAGS) -c $< -o $@

# The same workload built as a kernel without SMP (CONFIG_UP_ONLY).
$(ENG_OUT)/tests/unit/workload-uponly.o: $(ENG_DIR)/workload.c $(ENG_HDRS)
	@mkdir -p $(@D)
	$(CC) $(ENG_CFLAGS) -DCONFIG_UP_ONLY -c $< -o $@

$(ENG_SAN_OUT)/%.o: $(TOP)/%.c $(ENG_HDRS)
	@mkdir -p $(@D)
	$(CC) $(filter-out -O2,$(ENG_CFLAGS)) -O1 $(ENG_SAN) -c $< -o $@

# --- programs ---------------------------------------------------------
$(ENG_TEST): $(addprefix $(ENG_OUT)/,$(ENG_TEST_SRC:.c=.o))
	$(CC) $(ENG_LDFLAGS) -o $@ $^ -lcmocka

$(ENG_SAN_TEST): $(addprefix $(ENG_SAN_OUT)/,$(ENG_TEST_SRC:.c=.o))
	$(CC) $(ENG_SAN) $(ENG_LDFLAGS) -o $@ $^ -lcmocka

ENG_BENCH_OBJ := $(addprefix $(ENG_OUT)/,$(ENG_CORE:.c=.o) tests/bench/bench_synth.o \
	tests/unit/alt_host.o tests/unit/workload.o) \
	$(ENG_OUT)/tests/unit/workload-uponly.o

$(ENG_BENCH): $(ENG_BENCH_OBJ) $(ENG_OUT)/tests/bench/bench_host.o
	$(CC) $(ENG_LDFLAGS) -o $@ $^

$(ENG_DEMO): $(ENG_BENCH_OBJ) $(ENG_OUT)/tests/bench/demo_host.o
	$(CC) $(ENG_LDFLAGS) -o $@ $^

# --- targets ----------------------------------------------------------
test-unit: $(ENG_TEST)
	@$(ENG_TEST)

test-sanitize: $(ENG_SAN_TEST)
	@$(ENG_SAN_TEST)

bench-host: $(ENG_BENCH)
	@$(ENG_BENCH)

demo-host: $(ENG_DEMO)
	@$(ENG_DEMO)

# Site checker: the good program must pass, each broken one must fail.
ENG_BROKEN   := unrecorded-lock record-not-lock lock-recorded-twice \
	replacement-not-pic
ENG_BROKEN_ELF := $(addprefix $(ENG_OUT)/sites/,$(addsuffix .elf,$(ENG_BROKEN)))
CHECK_ELF    ?=

$(ENG_OUT)/sites/%.elf: $(ENG_DIR)/sites/%.c $(ENG_HDRS)
	@mkdir -p $(@D)
	$(CC) $(ENG_CFLAGS) $(ENG_LDFLAGS) -o $@ $<

check-sites: $(ENG_TEST) $(ENG_BROKEN_ELF)
	@python3 $(TOP)/scripts/check-sites.py --expect pass $(ENG_TEST) \
		$(addprefix --expect fail ,$(ENG_BROKEN_ELF)) \
		$(if $(wildcard $(GUEST_ELF)),--expect pass $(GUEST_ELF)) \
		$(if $(CHECK_ELF),--expect pass $(CHECK_ELF))
