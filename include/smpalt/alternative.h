/* SPDX-License-Identifier: MIT */
/*
 * alternative.h - code that the alternatives engine can rewrite.
 *
 * Three kinds of records, all emitted by the assembler next to the code:
 *
 *   LOCK_PREFIX            "lock" whose address goes into .smp_locks as a
 *                          32-bit self-relative offset.  UP form: the 0xf0
 *                          byte becomes 0x3e (a DS prefix, same length).
 *   alternative_smp(s, u)  SMP form s at the site, UP form u in
 *                          .smp_altinstr_replacement, a struct alt_smp_site
 *                          in .smp_altinstructions.  Switched both ways.
 *   alternative(o, n, f)   o at the site, n in .altinstr_replacement, a
 *                          struct alt_feature_site in .altinstructions.
 *                          Applied once, when feature f is present.
 *
 * A site is padded at assembly time to the longer of its two forms with
 * the same optimal NOPs the engine writes after the shorter form when it
 * switches (the fewest, longest; see ALT_PAD_OLD below).
 *
 * Rules for the forms given to alternative_smp() and alternative():
 *   - a lock inside an alternative_smp() SMP form is written as a literal
 *     "lock; " and never as LOCK_PREFIX: that record owns the byte, and a
 *     second record in .smp_locks would make two patchers fight over it.
 *   - the replacement is copied, so it must be position-independent: no
 *     %rip-relative operand (use a register operand such as "(%1)" with
 *     "r"(ptr) rather than "m"), no relative jump or call.  The engine
 *     decodes every replacement at init and refuses the table otherwise.
 *
 * With -DCONFIG_UP_ONLY the kernel is built without SMP: LOCK_PREFIX is
 * empty, alternative_smp() emits its UP form and no record is made.
 *
 * Works in freestanding guest code and in host programs alike.
 */
#ifndef SMPALT_ALTERNATIVE_H
#define SMPALT_ALTERNATIVE_H

#include <smpalt/alt_records.h>

#define ALT_STR_(x) #x
#define ALT_STR(x) ALT_STR_(x)

/* CPU feature numbers for alternative(): 32 * CPUID word + bit. */
#define ALT_FEATURE(word, bit) (32 * (word) + (bit))
/* Word 0: CPUID leaf 1 %edx; word 1: leaf 1 %ecx. */
#define ALT_FEATURE_WORD_1_EDX 0
#define ALT_FEATURE_WORD_1_ECX 1
#define ALT_FEATURE_SSE2 ALT_FEATURE(ALT_FEATURE_WORD_1_EDX, 26)
#define ALT_FEATURE_POPCNT ALT_FEATURE(ALT_FEATURE_WORD_1_ECX, 23)
#define ALT_FEATURE_MOVBE ALT_FEATURE(ALT_FEATURE_WORD_1_ECX, 22)

/* clang-format off */
/*
 * Padding.  When the replacement is longer than the old form, the old form
 * is followed by the same NOPs alt_fill_nops() writes (alt_insn.c): the
 * fewest, longest NOPs, 11 bytes each and one shorter NOP last.
 *
 * The pad length is a difference of labels.  GNU as can test it with .if,
 * but clang's integrated assembler only resolves such a difference once the
 * section is laid out, too late for .if, .rept or .nops.  So the padding is
 * written with .fill alone, whose repeat count may be such an expression:
 * each .fill below emits one piece of a NOP, once or not at all, and a
 * comparison is -1 when true in both assemblers.  ALT_PAD_SLOT emits the
 * NOP that covers pad bytes [o, o + 11), o = 0, 11, 22.  A .fill value
 * fills at most 4 bytes and zeroes the rest: 0x841f0f with size 8 is
 * 0f 1f 84 00 00 00 00 00.  The replacement is emitted first so that every
 * label is backward and the count is known when the .fill is laid out.
 *
 * A pad longer than ALT_PAD_MAX bytes stops the assembler: the .org then
 * moves backwards ("attempt to move .org backwards" from GNU as, "invalid
 * .org offset" from clang).
 */
#define ALT_PAD_MAX 33
#define ALT_PAD_SLOT(d, o)                                                    \
	".fill -((" d ")>(" o "+10)),3,0x2e6666\n" /* 11: 66 66 2e */         \
	".fill -((" d ")==(" o "+10)),2,0x2e66\n"  /* 10: 66 2e */            \
	".fill -((" d ")==(" o "+9)),1,0x66\n"     /* 9: 66 */                \
	".fill -((" d ")>(" o "+7)),8,0x841f0f\n"  /* 8-11: 0f 1f 84 0... */  \
	".fill -((" d ")==(" o "+7)),7,0x801f0f\n"                            \
	".fill -((" d ")==(" o "+6)),6,0x441f0f66\n"                          \
	".fill -((" d ")==(" o "+5)),5,0x441f0f\n"                            \
	".fill -((" d ")==(" o "+4)),4,0x401f0f\n"                            \
	".fill -((" d ")==(" o "+3)),3,0x1f0f\n"                              \
	".fill -((" d ")==(" o "+2)),2,0x9066\n"                              \
	".fill -((" d ")==(" o "+1)),1,0x90\n"

/* Replacement length minus old length (negative: no padding). */
#define ALT_PAD_DIFF(new_b, new_e, old_b, old_e)                              \
	"(" new_e "-" new_b ")-(" old_e "-" old_b ")"

/* Pad old_b..old_e (the old form) to the length of new_b..new_e. */
#define ALT_PAD_OLD(new_b, new_e, old_b, old_e)                               \
	ALT_PAD_SLOT(ALT_PAD_DIFF(new_b, new_e, old_b, old_e), "0")           \
	ALT_PAD_SLOT(ALT_PAD_DIFF(new_b, new_e, old_b, old_e), "11")          \
	ALT_PAD_SLOT(ALT_PAD_DIFF(new_b, new_e, old_b, old_e), "22")          \
	".org . - (-((" ALT_PAD_DIFF(new_b, new_e, old_b, old_e) ")>"         \
	ALT_STR(ALT_PAD_MAX) "))\n"

#ifdef CONFIG_UP_ONLY

#define LOCK_PREFIX ""
#define alternative_smp(smp, up) up "\n\t"

#else

/*
 * The record is emitted before the prefix so that "lock" directly precedes
 * the instruction: the prefix byte is the first byte of that instruction.
 */
#define LOCK_PREFIX                                                           \
	".pushsection .smp_locks,\"a\"\n\t"                                   \
	".balign 4\n\t"                                                       \
	".long 671f - .\n\t"                                                  \
	".popsection\n\t"                                                     \
	"671:\n\t"                                                            \
	"lock; "

#define alternative_smp(smp, up)                                              \
	".pushsection .smp_altinstr_replacement,\"ax\"\n"                     \
	"664:\n\t" up "\n"                                                    \
	"665:\n"                                                              \
	".popsection\n"                                                       \
	"661:\n\t" smp "\n"                                                   \
	"662:\n"                                                              \
	ALT_PAD_OLD("664b", "665b", "661b", "662b")                           \
	"663:\n"                                                              \
	".pushsection .smp_altinstructions,\"a\"\n"                           \
	" .long 661b - .\n"                                                   \
	" .long 664b - .\n"                                                   \
	" .byte 663b - 661b\n"                                                \
	" .byte 665b - 664b\n"                                                \
	".popsection\n\t"

#endif /* CONFIG_UP_ONLY */

/* Feature alternatives exist in both builds: they depend on the CPU. */
#define alternative(oldinstr, newinstr, feature)                              \
	".pushsection .altinstr_replacement,\"ax\"\n"                         \
	"674:\n\t" newinstr "\n"                                              \
	"675:\n"                                                              \
	".popsection\n"                                                       \
	"676:\n\t" oldinstr "\n"                                              \
	"677:\n"                                                              \
	ALT_PAD_OLD("674b", "675b", "676b", "677b")                           \
	"678:\n"                                                              \
	".pushsection .altinstructions,\"a\"\n"                               \
	" .long 676b - .\n"                                                   \
	" .long 674b - .\n"                                                   \
	" .word " ALT_STR(feature) "\n"                                       \
	" .byte 678b - 676b\n"                                                \
	" .byte 675b - 674b\n"                                                \
	".popsection\n\t"
/* clang-format on */

#endif /* SMPALT_ALTERNATIVE_H */
