# Scenario bench-real (make test-bench-real): make bench-real's command,
# scripts/run/bench-real.sh, on a Debian 12 dom0 with systemd as PID 1, as
# an administrator runs it on a real Xen host from the source tree.
# needs: systemd
# Input: a copy of the source tree at /root/smpalt (SMPALT_TREE of
# scripts/build/mkdom0-systemd.sh) holding what `make bench-real` builds
# before it runs the script: the patched and the stock guest in
# build/bench-real/ and the event stamper in build/gcc/bench/; Debian's
# xen.service with xenconsoled's guest logs on (the image's
# /etc/default/xen, as the script asks of an administrator). Action:
# `cd /root/smpalt && scripts/run/bench-real.sh -r ROUNDS`.
# Expected: it exits 0; its output gives the host's facts (cpu, xen,
# dom0_kernel, date) and the summary table with each of its Linux rows
# (TABLE_ROWS: the stock guest's steps alone and with user-space onlining
# and its boot, the patched guest's steps, the 1->2 ratio, both switches,
# the reaction of each step kind, the offline ratio, the reaction per
# step, the fork loop three ways and its two ratios), every result holding
# a number and none "not measured"; its results folder (results/latest)
# holds run.txt, summary.md, summary.csv with one line per row, and the
# CSVs linux-vcpu.csv, linux-smpalt-vcpu.csv, linux-work.csv. The output
# and those files are sent to the host as bench-real-*. The figures are
# TCG's, not judged: the scenario shows the command works end to end.

TREE=/root/smpalt
ROUNDS=1
TABLE_ROWS=30
OUT=/tmp/bench-real.out
FACTS="date cpu xen dom0_kernel"
FILES="run.txt summary.md summary.csv linux-vcpu.csv linux-smpalt-vcpu.csv linux-work.csv"
# Labels of rows the command must print (scripts/report/bench-report.py,
# LABELS_REAL): one of each kind the benchmark is for.
ROW_LABELS='stock Linux + user-space onlining, 1->2|patched Linux (the series), kernel only, 1->2|1->2 online: stock + user-space onlining / patched|patched Linux (the series), switch SMP->UP|patched Linux (the series), CPU 3->2, offline, no switch: reaction|patched Linux (the series), CPU 2->1, offline + switch to UP: reaction|offline with the switch to UP / offline without|guest reaction patched Linux (the series), 1->2|patched UP code / patched SMP code'

[ -x "$TREE/scripts/run/bench-real.sh" ] ||
	result SKIP "no source tree at $TREE (make test-bench-real carries one)"

log "cd $TREE && scripts/run/bench-real.sh -r $ROUNDS"
rc=0
(cd "$TREE" && scripts/run/bench-real.sh -r $ROUNDS) >$OUT 2>&1 || rc=$?
echo "--- the command's output (exit status $rc)"
cat $OUT
echo "---"
send_back bench-real.txt $OUT
RES=$(readlink -f "$TREE/results/latest")
for f in run.txt summary.md summary.csv; do
	send_back "bench-real-$f" "$RES/$f"
done
for s in bench-linux-vcpu bench-linux-smpalt; do
	send_back "bench-real-$s.log" "$RES/xen/$s.log"
done
[ $rc = 0 ] || fail "scripts/run/bench-real.sh exited with status $rc (its last line: '$(tail -1 $OUT)')"

for k in $FACTS; do
	grep -q "^- $k: ." $OUT || fail "no '$k' line among the host's facts"
done
# The table's rows: "| measurement | result |" less the header and rule.
grep '^| ' $OUT | tail -n +3 >/tmp/bench-real.rows
rows=$(wc -l </tmp/bench-real.rows)
[ "$rows" = $TABLE_ROWS ] || fail "$rows rows in the table, expected $TABLE_ROWS"
bad=$(awk -F' [|] ' '$2 !~ /[0-9]/ || /not measured/' /tmp/bench-real.rows | head -1)
[ -z "$bad" ] || fail "a row without a figure: '$bad'"
missing=$(echo "$ROW_LABELS" | tr '|' '\n' | while IFS= read -r l; do
	grep -qF -- "| $l" /tmp/bench-real.rows || grep -qF -- "|   $l" /tmp/bench-real.rows ||
		echo "$l"
done)
[ -z "$missing" ] || fail "rows missing: $(echo "$missing" | tr '\n' ';')"
for f in $FILES; do
	[ -s "$RES/$f" ] || fail "no $f in the results folder $RES"
done
lines=$(($(wc -l <"$RES/summary.csv") - 1))
[ "$lines" = $TABLE_ROWS ] || fail "summary.csv has $lines rows, expected $TABLE_ROWS"
result SUCCESS "scripts/run/bench-real.sh -r $ROUNDS: exit 0, $rows rows each with a figure, facts and files in $RES"
