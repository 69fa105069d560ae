# Turn `nm -n --defined-only` of the first guest link into the symbol
# table lib/ksyms.c searches: text symbols only, sorted by address,
# one name per address (a plain name over a linker "__" one).  Symbols
# after __text_end
# (replacement bytes in "ax" sections) are not code that runs.
BEGIN { n = 0; last = ""; done = 0 }
$3 == "__text_end" { done = 1 }
!done && $2 ~ /^[Tt]$/ && $1 == last && name[n - 1] ~ /^__/ {
	name[n - 1] = $3
}
!done && $2 ~ /^[Tt]$/ && $1 != last {
	addr[n] = $1
	name[n] = $3
	last = $1
	n++
}
END {
	print "\t.section .rodata.ksyms, \"a\""
	print "\t.balign 8"
	print "\t.globl ksym_addrs"
	print "ksym_addrs:"
	for (i = 0; i < n; i++)
		print "\t.quad 0x" addr[i]
	print "\t.globl ksym_name_off"
	print "ksym_name_off:"
	off = 0
	for (i = 0; i < n; i++) {
		print "\t.long " off
		off += length(name[i]) + 1
	}
	print "\t.globl ksym_count"
	print "ksym_count:"
	print "\t.long " n
	print "\t.globl ksym_names"
	print "ksym_names:"
	for (i = 0; i < n; i++)
		print "\t.asciz \"" name[i] "\""
}
