# How a build step is shown. Included by the top-level Makefile first.
#
#   make          one short line a step, the way Linux's Kbuild shows them:
#                   CC      kernel/main.o
#                   LD      build/gcc/smpalt.elf
#                 warnings and errors still come in full (the compiler
#                 writes them to stderr whatever is shown here)
#   make V=1      the full command of every step instead
#   make -s       neither
#
# A rule that runs a compiler, an assembler, a linker or a generator says
# what it makes, then runs the command behind $(Q):
#
#   $(OUT)/%.o: %.c
#   	$(call msg,CC,$@)
#   	$(Q)$(CC) $(CFLAGS) -c $< -o $@
#
# msg shows the path relative to the top of the repository.

V ?= 0

ifeq ($(V),1)
Q :=
msg =
else
Q := @
ifneq ($(findstring s,$(firstword -$(MAKEFLAGS))),)
msg =
else
msg = @printf '  %-7s %s\n' '$(1)' '$(patsubst $(TOP)/%,%,$(2))'
endif
endif
