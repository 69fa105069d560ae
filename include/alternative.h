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
 * 0x90 bytes; the engine writes the shorter form followed by optimal NOPs.
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

#include "alt_records.h"

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

/*
 * Padding: "-(a > b)" is 1 when a > b in the GNU assembler's convention
 * (a true comparison is -1), understood the same way by clang.  The
 * replacement is emitted first so that every label reference is backward
 * and the expression is absolute when the .skip is assembled.
 */
#define ALT_PAD_OLD(new_b, new_e, old_b, old_e)                               \
	".fill -(((" new_e "-" new_b ")-(" old_e "-" old_b ")) > 0) * "       \
	"((" new_e "-" new_b ")-(" old_e "-" old_b ")),1,0x90\n"

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
