#!/usr/bin/env bash
# The guest's layers run one way (docs/design.md, "Layers"):
#
#   lib (0)  <-  arch-xen (1)  <-  drivers (2)  <-  kernel (3)  <-  app (4)
#
# A file may include a guest header (<smpalt/NAME.h>) of its own layer or
# of a lower one, never of a higher one, and the includes between units
# (a unit is NAME: NAME.c or NAME.S with include/smpalt/NAME.h) have no
# loop.  A header belongs to the layer of the source of the same name;
# a header with no source of its own (inline code, constants) is placed by
# the table below.  A header in neither place is an error, so that a new
# header gets its layer on purpose.  The site macros (alternative.h) are
# ground floor: they only record sites in sections, for every layer's
# locks; the engine that rewrites them (alt_core) is arch-xen's.
#
#   scripts/check/check-layers.sh        check; one line per finding, then
#                                  "layers: N passed, N failed"
#   scripts/check/check-layers.sh -v     also print every include edge
set -uo pipefail
cd "$(dirname "$0")/../.."

verbose=0
[ "${1:-}" = -v ] && verbose=1

declare -A rank=([lib]=0 [arch-xen]=1 [drivers]=2 [kernel]=3 [app]=4)
declare -A layer_of # unit name -> layer dir

# Headers without a source of the same name.
header_only=(
	lib:atomic lib:barrier lib:kernel lib:page lib:refcount lib:spinlock
	lib:alternative lib:alt_records
	arch-xen:hypercall arch-xen:layout arch-xen:x86 arch-xen:entry_regs
	arch-xen:guest_ops
)
for e in "${header_only[@]}"; do
	layer_of[${e#*:}]=${e%%:*}
done

sources=()
for dir in lib arch-xen drivers kernel app; do
	for f in "$dir"/*.c "$dir"/*.S; do
		[ -e "$f" ] || continue
		sources+=("$f")
		n=$(basename "${f%.*}")
		if [ -n "${layer_of[$n]:-}" ] && [ "${layer_of[$n]}" != "$dir" ]; then
			echo "layers: $n has sources in ${layer_of[$n]} and $dir"
			exit 2
		fi
		layer_of[$n]=$dir
	done
done

pass=0
fail=0
edges=$(mktemp)
trap 'rm -f "$edges"' EXIT

includes() {
	sed -nE 's@^[[:space:]]*#[[:space:]]*include[[:space:]]*<smpalt/([a-z0-9_]+)\.h>.*@\1@p' "$1"
}

check_file() { # file unit layer
	local file=$1 unit=$2 dir=$3 inc
	for inc in $(includes "$file"); do
		local to=${layer_of[$inc]:-}
		if [ -z "$to" ]; then
			echo "FAIL $file: <smpalt/$inc.h> has no layer (no source of that name, not in the table of scripts/check/check-layers.sh)"
			fail=$((fail + 1))
			continue
		fi
		[ "$verbose" = 1 ] && echo "  $dir/$unit -> $to/$inc"
		if [ "${rank[$to]}" -gt "${rank[$dir]}" ]; then
			echo "FAIL $file ($dir) includes <smpalt/$inc.h> ($to): a lower layer reaches up"
			fail=$((fail + 1))
		else
			pass=$((pass + 1))
		fi
		[ "$inc" != "$unit" ] && echo "$unit $inc" >> "$edges"
	done
}

for f in "${sources[@]}"; do
	n=$(basename "${f%.*}")
	check_file "$f" "$n" "${layer_of[$n]}"
done
for h in include/smpalt/*.h; do
	n=$(basename "${h%.h}")
	if [ -z "${layer_of[$n]:-}" ]; then
		echo "FAIL $h has no layer (no source of that name, not in the table of scripts/check/check-layers.sh)"
		fail=$((fail + 1))
		continue
	fi
	check_file "$h" "$n" "${layer_of[$n]}"
done

# A bare libc-named guest header ("string.h") must not come back.
bare=$(grep -lE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[a-z0-9_]+\.h"' \
	lib/* arch-xen/* drivers/* kernel/* app/* include/smpalt/* 2>/dev/null)
for f in $bare; do
	echo "FAIL $f includes a guest header by a bare name (use <smpalt/NAME.h>)"
	fail=$((fail + 1))
done

# Loops between units: tsort names them.
loops=$(tsort "$edges" 2>&1 >/dev/null)
if [ -n "$loops" ]; then
	echo "FAIL include loop between units:"
	printf '%s\n' "$loops" | sed 's/^/    /'
	fail=$((fail + 1))
else
	pass=$((pass + 1))
fi

echo "layers: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
