# Scenario maxvcpus-1: a guest that can never have a second vCPU stays UP
# for good, gives its SMP tables back, and attempts no switch and no
# onlining (the engine's rules, docs/guest.md; Linux as stock Linux does).
# guests: smpalt linux debian
# Input: the guest started with vcpus=1 maxvcpus=1 under its load
# (guest_start_up: smpalt demand 300, Linux smpalt.stress=1); then
# xl vcpu-set 2 (and -i 2), then cpu/1/availability = online written by
# dom0 itself, past xl.
# Expected at boot: online 1, mode up, switches 0, Xen agrees; the tables
# freed, in the guest's own words:
# - smpalt: console "vcpu: maxvcpus 1" and "alt: maxvcpus is 1: UP for
#   good, freed <n> bytes (<p> pages) of SMP tables" with p >= 1, then the
#   guest's proof that those pages are memory again: "alt: SMP table pages
#   reused: <r> of <p> allocated again, <w> words written and read back,
#   <b> wrong" with r = p (every freed page handed out again by the
#   allocator), w = r * 512 (each 8-byte word of each page read back as
#   written) and b = 0 (nor any left unzeroed);
# - Linux: its "Freeing SMP alternatives memory" line.
# xl refuses vcpu-set 2 or the guest ignores it; the smpalt guest logs
# cpu/1 as beyond maxvcpus. IGNORE_SECONDS after each attempt, and at boot:
# still online 1, mode up, switches 0, Xen counts 1 online and lists one
# vCPU only, the guest clean (guest_clean: the domain runs, no alarming
# console line, for Linux refused 0), and for the smpalt guest no
# "switched to SMP" console line. The counters check answers ok with
# items > 0.

IGNORE_SECONDS=5
LOG_TIMEOUT=20
WORDS_PER_PAGE=512 # 4096-byte pages, 8-byte words
TO_SMP_LINE="switched to SMP"

# still_up WHAT: one vCPU online in the guest's and Xen's view, UP text,
# no switch ever, the guest clean; Xen lists one vCPU only.
still_up() {
	local rows
	expect_guest_state "$1" 1 up 0
	guest_clean "$1"
	check_xen_view "$1"
	rows=$(xl vcpu-list "$GUEST" 2>/dev/null | awk 'NR > 1' | wc -l)
	[ "$rows" -eq 1 ] || {
		xl vcpu-list "$GUEST"
		fail "$1: Xen lists $rows vCPUs for a maxvcpus=1 guest"
	}
	[ "$(guest_kind)" != smpalt ] || ! grep -qF "$TO_SMP_LINE" "$CONSOLE_LOG" ||
		fail "after $1: the console shows a switch to SMP"
}

# tables_freed_smpalt: the UP-for-good and reuse lines (above); TABLES says
# what they freed and reused.
tables_freed_smpalt() {
	local max_line="vcpu: maxvcpus 1" up_once="alt: maxvcpus is 1: UP for good"
	local reused="alt: SMP table pages reused:" num='\([0-9][0-9]*\)'
	local line freed freed_pages reuse
	grep -qF -- "$max_line" "$CONSOLE_LOG" || fail "console lacks '$max_line'"
	line=$(tr -d '\r' <"$CONSOLE_LOG" | grep -F -m1 -- "$up_once") ||
		fail "console lacks '$up_once'"
	freed=$(echo "$line" | sed -n "s/.*, freed $num bytes ($num pages) of SMP tables.*/\\1 \\2/p")
	[ -n "$freed" ] || fail "the UP-for-good line does not say what it freed: '$line'"
	freed_pages=${freed#* }
	[ "$freed_pages" -ge 1 ] || fail "the UP-for-good line freed no page: '$line'"
	log "console: $line"
	reuse=$(tr -d '\r' <"$CONSOLE_LOG" | grep -F -m1 -- "$reused") ||
		fail "console lacks '$reused': nothing shows the freed pages in use again"
	# shellcheck disable=SC2046 # four numbers on purpose
	set -- $(echo "$reuse" | sed -n "s/.*reused: $num of $num allocated again, $num words written and read back, $num wrong.*/\\1 \\2 \\3 \\4/p")
	[ $# -eq 4 ] || fail "cannot read the reuse line: '$reuse'"
	[ "$2" -eq "$freed_pages" ] ||
		fail "the reuse line counts $2 freed pages, the UP-for-good line $freed_pages: '$reuse'"
	[ "$1" -eq "$freed_pages" ] ||
		fail "only $1 of the $freed_pages freed pages came back from the allocator: '$reuse'"
	[ "$3" -eq $(($1 * WORDS_PER_PAGE)) ] && [ "$4" -eq 0 ] ||
		fail "the reused pages did not read back as written ($3 words right, $4 wrong, want $(($1 * WORDS_PER_PAGE)) and 0): '$reuse'"
	log "console: $reuse"
	# The guest's own words, e.g. "freed 8192 bytes (2 pages) of SMP tables".
	line=${line#*"$up_once"}
	TABLES="UP for good (${line#, }; $1 of $freed_pages freed pages allocated again, written and read back)"
}

# tables_freed_linux: Linux's own line; TABLES quotes it.
tables_freed_linux() {
	local freed_line="Freeing SMP alternatives memory" line
	line=$(tr -d '\r' <"$CONSOLE_LOG" | grep -F -m1 -- "$freed_line") ||
		fail "with maxvcpus=1 the console lacks '$freed_line': the lock-site table was kept"
	log "console: $line"
	line=${line#*"$freed_line"}
	TABLES="table freed ('$freed_line${line:+$line}')"
}

# tables_freed_debian: Debian's package is Linux: the same line.
tables_freed_debian() { tables_freed_linux; }

guest_start_up "maxvcpus=1"
"tables_freed_$(guest_kind)"
still_up boot

refused=
for opt in "" -i; do
	# shellcheck disable=SC2086 # no option or -i
	if out=$(xl vcpu-set $opt "$GUEST" 2 2>&1); then
		log "xl vcpu-set${opt:+ $opt} 2 accepted: $out"
	else
		log "xl vcpu-set${opt:+ $opt} 2 refused: $out"
		refused="$refused${refused:+, }vcpu-set${opt:+ $opt} 2"
	fi
done
sleep $IGNORE_SECONDS
still_up "xl vcpu-set 2"

mark=$(console_lines)
xs_write_guest cpu/1/availability online || fail "cannot write cpu/1/availability"
if [ "$(guest_kind)" = smpalt ]; then
	wait_for_console_since "$mark" 'cpu/1(/availability)?[=:]' $LOG_TIMEOUT ||
		fail "cpu/1/availability=online: no console line names cpu/1 within ${LOG_TIMEOUT}s"
	log "console: $CONSOLE_MATCH"
fi
sleep $IGNORE_SECONDS
still_up "cpu/1/availability=online"

guest_counters_ok "on the UP text"
guest_destroy
result SUCCESS "maxvcpus=1: $TABLES, up, online 1, switches 0, Xen 1; ${refused:-no vcpu-set} refused by xl, cpu/1 online ignored; counters ok items=$CHECK_ITEMS"
