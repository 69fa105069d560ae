# Fuzzing of the alternatives engine (clang's libFuzzer) and the length
# decoder's cross-check against objdump.
#
#   make test-fuzz        every target tests/fuzz/fuzz_*.c for FUZZ_S
#                         seconds (20 by default) from its seed corpus
#                         (tests/fuzz/corpus/<target>/), after replaying
#                         the crash inputs kept in tests/fuzz/crashes/
#                         <target>/; then the decoder against objdump
#                         (this suite is part of make test); each run
#                         starts again from the seeds
#   make fuzz FUZZ_S=600  the same, FUZZ_S seconds per target, building on
#                         the corpus earlier runs left in build/fuzz/
#   make check-decoder    the decoder against objdump only: every prefix
#                         combination (--combos), every opcode form
#                         (--opcodes), the test program, the
#                         guest kernel and DECODER_ELVES (libc)
#
# Each target prints the executions libFuzzer ran; the suite ends with
# "N passed, N failed".  New inputs go to build/fuzz/<target>.corpus,
# crashes to build/fuzz/<target>-crash-*: a crash found becomes a file in
# tests/fuzz/crashes/<target>/ (replayed every run) or a unit test.

.PHONY: test-fuzz fuzz check-decoder

FUZZ_S        ?= 20
FUZZ_DIR      := $(TOP)/tests/fuzz
FUZZ_OUT      := $(TOP)/build/fuzz
FUZZ_TARGETS  := $(notdir $(basename $(wildcard $(FUZZ_DIR)/fuzz_*.c)))
FUZZ_BINS     := $(addprefix $(FUZZ_OUT)/,$(FUZZ_TARGETS))
DECODER_ELVES ?= $(wildcard /lib/x86_64-linux-gnu/libc.so.6)
DECODER_HELPER := $(ENG_OUT)/insn_lengths

# libFuzzer comes with clang whatever CC is.
$(FUZZ_OUT)/%: $(FUZZ_DIR)/%.c $(addprefix $(TOP)/,$(ENG_CORE)) $(ENG_HDRS) \
		$(TOP)/mk/fuzz.mk
	@mkdir -p $(@D)
	$(call msg,CCLD,$@)
	$(Q)clang $(SAN_CFLAGS) -fsanitize=fuzzer \
		-o $@ $< $(addprefix $(TOP)/,$(ENG_CORE))

$(DECODER_HELPER): $(FUZZ_DIR)/insn_lengths.c $(TOP)/arch-xen/alt_insn.c \
		$(ENG_HDRS)
	@mkdir -p $(@D)
	$(call msg,CCLD,$@)
	$(Q)$(CC) $(ENG_CFLAGS) -o $@ $< $(TOP)/arch-xen/alt_insn.c

DECODER_ARGS = $(DECODER_HELPER) $(ENG_TEST) $(GUEST_ELF) $(DECODER_ELVES)

FUZZ_DEPS := $(FUZZ_BINS) $(DECODER_HELPER) $(ENG_TEST) $(GUEST_ELF)

test-fuzz: $(FUZZ_DEPS)
	@bash $(FUZZ_DIR)/run-fuzz.sh --fresh $(FUZZ_S) $(FUZZ_OUT) \
		$(FUZZ_TARGETS) -- $(DECODER_ARGS)

fuzz: $(FUZZ_DEPS)
	@bash $(FUZZ_DIR)/run-fuzz.sh $(FUZZ_S) $(FUZZ_OUT) $(FUZZ_TARGETS) \
		-- $(DECODER_ARGS)

check-decoder: $(DECODER_HELPER) $(ENG_TEST) $(GUEST_ELF)
	@python3 $(FUZZ_DIR)/insn-vs-objdump.py --combos $(DECODER_HELPER) \
		&& python3 $(FUZZ_DIR)/insn-vs-objdump.py --opcodes \
			$(DECODER_HELPER) \
		&& python3 $(FUZZ_DIR)/insn-vs-objdump.py $(DECODER_ARGS)
