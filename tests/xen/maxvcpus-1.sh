# Scenario maxvcpus-1: a guest that can never have a second vCPU applies
# its UP form once, frees its SMP tables and never switches again
# (the engine's rules, docs/guest.md).
# Input: xl create with vcpus=1 maxvcpus=1, demand 300; then
# xl vcpu-set 2 (and -i 2), then cpu/1/availability = online written by
# dom0 itself, past xl.
# Expected: console "vcpu: maxvcpus 1" and "alt: maxvcpus is 1: UP for
# good, freed <n> bytes (<p> pages) of SMP tables" with p >= 1, then the
# guest's proof that those pages are memory again: "alt: SMP table pages
# reused: <r> of <p> allocated again, <w> words written and read back,
# <b> wrong" with r = p (every freed page handed out again by the
# allocator), w = r * 512 (each 8-byte word of each page read back as
# written) and b = 0 (nor any left unzeroed); then "smpalt: ready";
# mode=up, online=1, switches=0. xl refuses vcpu-set 2 or the guest
# ignores it, and the guest logs cpu/1 as beyond maxvcpus: IGNORE_SECONDS
# later still mode=up, online=1, switches=0 and no "switched to SMP" line.
# The counters check answers ok with items > 0.

MAX_LINE="vcpu: maxvcpus 1"
UP_ONCE="alt: maxvcpus is 1: UP for good"
REUSED="alt: SMP table pages reused:"
BOOT_TIMEOUT=60
KEY_TIMEOUT=20
LOG_TIMEOUT=20
IGNORE_SECONDS=3
WORKLOAD_TIMEOUT=20
DEMAND=300
TO_SMP_LINE="switched to SMP"
WORDS_PER_PAGE=512 # 4096-byte pages, 8-byte words

# still_up WHAT: mode up, one vCPU, no switch ever, domain running.
still_up() {
	expect_guest_state "$1" 1 up 0
	grep -qF "$TO_SMP_LINE" "$CONSOLE_LOG" &&
		fail "after $1: the console shows a switch to SMP"
}

guest_boot $BOOT_TIMEOUT "vcpus=1" "maxvcpus=1"
grep -qF -- "$MAX_LINE" "$CONSOLE_LOG" || fail "console lacks '$MAX_LINE'"
line=$(tr -d '\r' <"$CONSOLE_LOG" | grep -F -m1 -- "$UP_ONCE") ||
	fail "console lacks '$UP_ONCE'"
num='\([0-9][0-9]*\)'
freed_re=".*, freed $num bytes ($num pages) of SMP tables.*"
freed=$(echo "$line" | sed -n "s/$freed_re/\\1 \\2/p")
[ -n "$freed" ] || fail "the UP-for-good line does not say what it freed: '$line'"
freed_pages=${freed#* }
[ "$freed_pages" -ge 1 ] || fail "the UP-for-good line freed no page: '$line'"
log "console: $line"
reuse=$(tr -d '\r' <"$CONSOLE_LOG" | grep -F -m1 -- "$REUSED") ||
	fail "console lacks '$REUSED': nothing shows the freed pages in use again"
reuse_re=".*reused: $num of $num allocated again, $num words written and read back, $num wrong.*"
# shellcheck disable=SC2046 # four numbers on purpose
set -- $(echo "$reuse" | sed -n "s/$reuse_re/\\1 \\2 \\3 \\4/p")
[ $# -eq 4 ] || fail "cannot read the reuse line: '$reuse'"
[ "$2" -eq "$freed_pages" ] ||
	fail "the reuse line counts $2 freed pages, the UP-for-good line $freed_pages: '$reuse'"
[ "$1" -eq "$freed_pages" ] ||
	fail "only $1 of the $freed_pages freed pages came back from the allocator: '$reuse'"
[ "$3" -eq $(($1 * WORDS_PER_PAGE)) ] && [ "$4" -eq 0 ] ||
	fail "the reused pages did not read back as written ($3 words right, $4 wrong, want $(($1 * WORDS_PER_PAGE)) and 0): '$reuse'"
log "console: $reuse"
reused="$1 of $freed_pages freed pages allocated again, written and read back"
# The guest's own words for the tables it gave up, e.g. "freed 8192 bytes
# (2 pages) of SMP tables".
tables=${line#*"$UP_ONCE"}
tables=${tables#, }
wait_for_xs data/smpalt/switches 0 $KEY_TIMEOUT ||
	fail "data/smpalt/switches is '$(xs_read_guest data/smpalt/switches)', expected 0"
still_up boot
start_workload $DEMAND $WORKLOAD_TIMEOUT ||
	fail "demand $DEMAND: throughput never became positive"

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
wait_for_console_since "$mark" 'cpu/1(/availability)?[=:]' $LOG_TIMEOUT ||
	fail "cpu/1/availability=online: no console line names cpu/1 within ${LOG_TIMEOUT}s"
log "console: $CONSOLE_MATCH"
sleep $IGNORE_SECONDS
still_up "cpu/1/availability=online"

counters_ok "on the UP-for-good text"
alarm=$(console_alarm) && fail "guest console: $alarm"

guest_destroy
result SUCCESS "maxvcpus=1: UP for good ($tables; $reused), switches 0; ${refused:-no vcpu-set} refused by xl, cpu/1 online ignored; counters ok items=$CHECK_ITEMS"
