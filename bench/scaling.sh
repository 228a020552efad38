#!/usr/bin/env bash
# scaling.sh measures how one objective + gradient evaluation of gmlg bench
# speeds up with the number of threads, side by side for several builds of
# gmlg (by default the baseline and the new build of the kit that
# `make devkit BASE=<git revision>` writes into devkit/).
#
# For every row of ROWS, every thread count P of PS and every binary of BIN
# (the binaries alternate innermost, so that a drift of the machine affects
# them alike) it runs
#   $bin bench -rows $row -iters 0 -backends $BACKEND -threads $P -json FILE
# that is one evaluation with that backend at GOMAXPROCS=P in a child process,
# prints one line per run (wall and CPU seconds per evaluation, peak RSS of
# the measuring child) and at the end a markdown table of the wall seconds
# per evaluation and of each binary's speed-up over its own time at P=REFP.
#
# It needs only bash, coreutils, awk, sed and grep. Run it from the
# repository root of an unpacked kit; devkit.tar.gz is unpacked when devkit/
# is missing, and LD_LIBRARY_PATH defaults to devkit/lib:
#   LD_LIBRARY_PATH=$PWD/devkit/lib bash bench/scaling.sh
# Environment (default in brackets):
#   BIN      binaries, baseline first ["devkit/gmlg-base devkit/gmlg"]
#   ROWS     bench rows d:n:S ["3:32:20 3:16:20 2:100:20"]
#   PS       thread counts ["2 8 16"]
#   BACKEND  the factorisation backend [cholmod; go for the pure-Go team]
#   REFP     the P that speed-ups are relative to [2, else the first of PS]
#   OUT      folder of the JSON reports, logs and results.tsv [/tmp/scaling]
#   TIMEOUT  seconds one run may take before it is killed [300]
# A run that fails or times out is reported, shown as "-" in the table, and
# the script goes on with the next one.

set -u

BIN=${BIN:-"devkit/gmlg-base devkit/gmlg"}
ROWS=${ROWS:-"3:32:20 3:16:20 2:100:20"}
PS=${PS:-"2 8 16"}
BACKEND=${BACKEND:-cholmod}
OUT=${OUT:-/tmp/scaling}
TIMEOUT=${TIMEOUT:-300}
REFP=${REFP:-}
if [ -z "$REFP" ]; then
	REFP=2
	case " $PS " in *" 2 "*) ;; *) REFP=${PS%% *} ;; esac
fi

if [ ! -d devkit ] && [ -f devkit.tar.gz ]; then
	tar -xzf devkit.tar.gz || exit 1
fi
if [ -z "${LD_LIBRARY_PATH:-}" ] && [ -d devkit/lib ]; then
	export LD_LIBRARY_PATH=$PWD/devkit/lib
fi
mkdir -p "$OUT" || exit 1
results=$OUT/results.tsv
: >"$results"

# safe prints $1 with every character but letters, digits, '-', '_' and '.'
# replaced by '_', for file names.
safe() { printf '%s' "$1" | sed 's/[^A-Za-z0-9._-]/_/g'; }

# field prints the first value of the JSON key $2 in the indented report $1
# (WriteJSON puts one key per line), empty when it is missing.
field() {
	awk -v key="\"$2\":" '$1 == key { v = $2; sub(/,$/, "", v); print v; exit }' "$1"
}

# measure runs binary $1 on row $2 with $3 threads, prints its summary line
# and appends "bin row P wall cpu rss" to results.tsv ("-" where it failed).
measure() {
	local bin=$1 row=$2 p=$3 name json log rc start secs wall cpu evals rss
	name=$(safe "$bin")-$(safe "$row")-P$p
	json=$OUT/$name.json
	log=$OUT/$name.log
	rm -f "$json"
	start=$(date +%s.%N)
	timeout -k 10 "$TIMEOUT" "$bin" bench -rows "$row" -iters 0 -backends "$BACKEND" \
		-threads "$p" -json "$json" >"$log" 2>&1
	rc=$?
	secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
	wall="" cpu="" evals="" rss=""
	if [ -f "$json" ]; then
		wall=$(field "$json" SecPerEval)
		cpu=$(field "$json" MinimizeCPU)
		evals=$(field "$json" Evals)
		rss=$(field "$json" MaxRSS)
	fi
	if [ "$rc" != 0 ] || [ -z "$wall" ] || [ -z "$evals" ] || [ "$evals" = 0 ]; then
		[ "$rc" = 124 ] && rc="124 (timed out after ${TIMEOUT}s)"
		printf '%-24s %-10s P=%-3s FAILED rc=%s after %ss, log %s\n' "$bin" "$row" "$p" "$rc" "$secs" "$log"
		printf '%s\t%s\t%s\t-\t-\t-\n' "$bin" "$row" "$p" >>"$results"
		return
	fi
	cpu=$(awk -v c="${cpu:-0}" -v e="$evals" 'BEGIN { printf "%.6g", c / e }')
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$bin" "$row" "$p" "$wall" "$cpu" "${rss:-0}" >>"$results"
	awk -v b="$bin" -v r="$row" -v p="$p" -v w="$wall" -v c="$cpu" -v m="${rss:-0}" -v s="$secs" \
		'BEGIN { printf "%-24s %-10s P=%-3s wall %9.4f s/eval  cpu %9.4f s/eval  rss %7.1f MiB  (run %ss)\n", b, r, p, w, c, m / 1048576, s }'
}

# table prints the markdown table of results.tsv: per row and P the wall
# seconds per evaluation of every binary (in BIN's order), then every
# binary's speed-up over its own time at P=REFP (last binary first).
table() {
	awk -F '\t' -v bins="$BIN" -v rows="$ROWS" -v ps="$PS" -v refp="$REFP" '
	function num(v) {
		if (v == "-" || v == "") return "-"
		if (v >= 100) return sprintf("%.0f", v)
		if (v >= 1) return sprintf("%.2f", v)
		return sprintf("%.3g", v)
	}
	function label(b) { sub(/.*\//, "", b); return b }
	{ t[$1 SUBSEP $2 SUBSEP $3] = $4 }
	END {
		nb = split(bins, B, " "); nr = split(rows, R, " "); np = split(ps, P, " ")
		head = "| row | P |"; rule = "|---|---:|"
		for (i = 1; i <= nb; i++) { head = head " " label(B[i]) " s/eval |"; rule = rule "---:|" }
		for (i = nb; i >= 1; i--) { head = head " " label(B[i]) " speed-up vs P=" refp " |"; rule = rule "---:|" }
		print head; print rule
		for (r = 1; r <= nr; r++) for (q = 1; q <= np; q++) {
			line = "| " R[r] " | " P[q] " |"
			for (i = 1; i <= nb; i++) line = line " " num(t[B[i] SUBSEP R[r] SUBSEP P[q]]) " |"
			for (i = nb; i >= 1; i--) {
				v = t[B[i] SUBSEP R[r] SUBSEP P[q]]; ref = t[B[i] SUBSEP R[r] SUBSEP refp]
				s = "-"
				if (v != "" && v != "-" && ref != "" && ref != "-" && v > 0) s = sprintf("%.2f", ref / v)
				line = line " " s " |"
			}
			print line
		}
	}' "$results"
}

echo "host: $(nproc) CPUs, $(grep -m 1 'model name' /proc/cpuinfo | sed 's/.*: //'), load $(cut -d ' ' -f 1-3 /proc/loadavg)"
for bin in $BIN; do
	echo "$bin: $("$bin" version 2>&1 | head -n 1)"
done
for row in $ROWS; do
	for p in $PS; do
		for bin in $BIN; do
			measure "$bin" "$row" "$p"
		done
	done
done
echo
table
