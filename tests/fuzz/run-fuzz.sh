#!/bin/bash
# SPDX-License-Identifier: MIT
# run-fuzz.sh - the fuzzing suite (make test-fuzz, make fuzz).
#
# Usage: run-fuzz.sh [--fresh] SECONDS OUTDIR TARGET... -- HELPER ELF...
#
# For each libFuzzer TARGET (built as OUTDIR/TARGET):
#   1. replay every input in tests/fuzz/crashes/TARGET/ (crashes found
#      before, kept as regression inputs): each must run clean;
#   2. fuzz for SECONDS from the seed corpus tests/fuzz/corpus/TARGET/
#      (read only; new inputs go to OUTDIR/TARGET.corpus, a crash to
#      OUTDIR/TARGET-crash-*) and print the executions libFuzzer ran.
#      --fresh empties OUTDIR/TARGET.corpus first (make test-fuzz: every
#      run starts from the seeds); without it the corpus of earlier runs
#      is kept (make fuzz: long runs build on each other).
# Then the length decoder against objdump: every prefix combination
# (--combos), every opcode form (--opcodes), and each ELF given
# (insn-vs-objdump.py HELPER ELF...).
# One line per part, "PASS <part>: <figures>" or "FAIL <part>[: <why>]";
# the last line is "N passed, N failed" (scripts/lib/tally.sh).
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
fresh=false
if [ "${1:-}" = "--fresh" ]; then
	fresh=true
	shift
fi
secs=$1
out=$2
shift 2
targets=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
	targets+=("$1")
	shift
done
shift # --
. "$here/../../scripts/lib/tally.sh"

# libFuzzer's own figure: "stat::number_of_executed_units: N".
executions() {
	sed -n 's/^stat::number_of_executed_units: *//p' "$1" | tail -1
}

for t in "${targets[@]}"; do
	bin=$out/$t
	log=$out/$t.log
	crashes=$here/crashes/$t
	if $fresh; then
		rm -rf "$out/$t.corpus"
	fi
	mkdir -p "$out/$t.corpus"

	# 1. known crash inputs, replayed (no fuzzing: only these files)
	if [ -d "$crashes" ] && ls "$crashes"/* >/dev/null 2>&1; then
		n=$(ls "$crashes" | wc -l)
		if "$bin" "$crashes"/* >"$out/$t.replay.log" 2>&1; then
			ok "$t: replay" "$n kept crash inputs run clean"
		else
			ko "$t: replay" "see $out/$t.replay.log"
			tail -20 "$out/$t.replay.log"
		fi
	fi

	# 2. a bounded run from the seed corpus
	start=$(date +%s)
	nice -n 10 "$bin" -max_total_time="$secs" -timeout=10 \
		-print_final_stats=1 -artifact_prefix="$out/$t-" \
		"$out/$t.corpus" "$here/corpus/$t" >"$log" 2>&1
	rc=$?
	took=$(($(date +%s) - start))
	runs=$(executions "$log")
	if [ $rc -eq 0 ] && [ -n "$runs" ]; then
		ok "$t" "${runs} executions in ${took} s, corpus $(ls "$out/$t.corpus" | wc -l) new + $(ls "$here/corpus/$t" | wc -l) seeds"
	else
		ko "$t" "exit $rc, ${runs:-0} executions in ${took} s; see $log"
		grep -E "ERROR|SUMMARY|Test unit written|runtime error" "$log" | head -10
	fi
done

# 3. the decoder against objdump
helper=$1
shift
for mode in combos opcodes; do
	if python3 "$here/insn-vs-objdump.py" --$mode "$helper" >"$out/decoder-$mode.log" 2>&1; then
		ok "decoder vs objdump, --$mode" "$(head -1 "$out/decoder-$mode.log" | sed 's/^insn-vs-objdump: //')"
	else
		ko "decoder vs objdump, --$mode"
		head -22 "$out/decoder-$mode.log"
	fi
done
for elf in "$@"; do
	if python3 "$here/insn-vs-objdump.py" "$helper" "$elf" >"$out/decoder.log" 2>&1; then
		ok "decoder vs objdump, $(basename "$elf")" "$(head -1 "$out/decoder.log" | sed 's/^insn-vs-objdump: [^:]*: //')"
	else
		ko "decoder vs objdump, $(basename "$elf")"
		head -22 "$out/decoder.log"
	fi
done

tally_end
