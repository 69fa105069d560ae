// SPDX-License-Identifier: MIT
/*
 * insn_lengths.c - decode instructions given as hex, one per line, and
 * print the length alt_insn_decode() finds ("-" if it refuses) and
 * whether it calls them position-independent.  Used by
 * insn-vs-objdump.py to compare the engine's decoder with objdump.
 */
#include <stdio.h>
#include <string.h>

#include <smpalt/alt_insn.h>

#define LINE_MAX_LEN 256

int main(void)
{
	char line[LINE_MAX_LEN];

	while (fgets(line, sizeof(line), stdin)) {
		uint8_t buf[ALT_INSN_MAX_LEN * 2];
		size_t n = 0;
		unsigned int byte;
		char *p = line;
		struct alt_insn insn;
		int len;

		while (n < sizeof(buf) && sscanf(p, "%2x", &byte) == 1) {
			buf[n++] = (uint8_t)byte;
			p += 2;
		}
		len = alt_insn_decode(buf, n, &insn);
		if (len < 0)
			printf("-\n");
		else
			printf("%d %s\n", len,
			       alt_insn_is_pic(&insn) ? "pic" : "nonpic");
	}
	return 0;
}
