#!/bin/sh
# Times the authors' reference implementation on this machine and, right
# after each case, gmlg's BenchmarkEval of the same case, and prints the
# speed-up and memory ratio on the same hardware.
#
#   bench/reference/run.sh REFDIR [CASE...]     CASE: F4-K20 F4-K100 seldovia2 (default: all)
#   GMLG=0 bench/reference/run.sh REFDIR ...    the reference only
#
# REFDIR is a checkout of github.com/matthieuheitz/2020-JMIV-ground-metric-learning-graphs
# (measured at ef92734); it is cloned there when absent. Nothing of it is copied
# into gmlg. The script installs Debian's Python stack when it is missing
# (python3-torch, -scipy, -opencv, ...). Debian has no scikit-sparse: build it
# from its source with Debian's cython3 and libsuitesparse-dev (in its
# checkout, `python3 setup.py build_ext --inplace`) and put that checkout on
# PYTHONPATH. Unless `import sksparse.cholmod` works, a stand-in built from
# shim.c (one cholmod_solve2 per solve_A call, like scikit-sparse) takes its
# place. Which of the two the reference imports is printed at the start and
# repeated in every summary line, with the machine, since the two time
# differently.
#
# Each case runs the README's command with --max_iter 3 (4–5 evaluations). The
# reference prints "F: forward, B: backward" seconds per evaluation; one
# evaluation here is F + B minus the "Time data save" the forward pass spends
# writing files on some evaluations. The first two evaluations warm up and are
# listed but not summarised. Peak RSS and CPU share are GNU time's maximum
# resident set size and percent of CPU (of the whole run, start-up included).
# gmlg's side is BENCHMARKS.md's command, `go test -run '^$' -bench
# 'BenchmarkEval/<case>/cholmod' -benchtime 3x ./learn/`, in its own process
# (peak RSS is the process's); it needs ../shared/data beside the repository.
# The speed-up range pairs the reference's fastest steady evaluation with
# gmlg's time and its slowest likewise. The reference's F(x0) is checked
# against the value gmlg computes (a warning if it differs).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
refdir=${1:?usage: run.sh REFDIR [F4-K20 F4-K100 seldovia2]}
shift
cases=${*:-F4-K20 F4-K100 seldovia2}
py=/usr/bin/python3
sudo=
[ "$(id -u)" = 0 ] || sudo=sudo

need=
for pkg in python3-torch python3-scipy python3-numpy python3-matplotlib python3-imageio \
	python3-opencv python3-networkx libsuitesparse-dev time git gcc; do
	dpkg -s "$pkg" >/dev/null 2>&1 || need="$need $pkg"
done
if [ -n "$need" ]; then
	echo "installing:$need" >&2
	$sudo apt-get update -qq
	# shellcheck disable=SC2086
	$sudo apt-get install -y -qq $need >&2
fi

if [ ! -d "$refdir" ]; then
	git clone -q https://github.com/matthieuheitz/2020-JMIV-ground-metric-learning-graphs "$refdir"
fi
echo "reference: $(git -C "$refdir" log -1 --format='%h %cs' 2>/dev/null || echo "$refdir")"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if ! "$py" -c 'import sksparse.cholmod' 2>/dev/null; then
	gcc -O2 -shared -fPIC -o "$work/libshim.so" "$here/shim.c" -lcholmod
	export GMLG_REF_SHIM="$work/libshim.so"
	export PYTHONPATH="$here${PYTHONPATH:+:$PYTHONPATH}"
fi
# Ask Python which module the reference will import, rather than assuming it.
skfile=$("$py" -c 'import sksparse.cholmod as m; print(m.__file__)')
case $skfile in
"$here"/*) solver="stand-in scikit-sparse (bench/reference/shim.c)" ;;
*)
	# The version of the module imported (a build from source on PYTHONPATH
	# has one too), else of the installed distribution.
	skver=$("$py" -c 'import sksparse; print(sksparse.__version__)' 2>/dev/null ||
		"$py" -c 'import importlib.metadata as m; print(m.version("scikit-sparse"))' 2>/dev/null ||
		echo "version unknown")
	solver="real scikit-sparse $skver"
	;;
esac
machine="$(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
echo "scikit-sparse: $solver ($skfile)"
echo "machine: $machine"

for c in $cases; do
	case $c in
	F4-K20 | F4-K100)
		# F(x0) as docs/method.md, "Reference values" gives it
		# (K_heat = 100) and gmlg eval (20), to the 6 digits the reference
		# prints.
		want=5.82126
		[ "$c" = F4-K100 ] && want=7.12044
		set -- ml_kinterp2.py data/toydataF4 --loss_num 4 -L 50 --t_heat 3e-3 --k_heat "${c#F4-K}" \
			--metric_regul_ro 0 --metric_regul_ro_lap 0.03 --max_iter 3 -f 20
		;;
	seldovia2)
		want=4162.73
		set -- ml_color_timelapse.py data/seldovia2 -n 16 --loss_num 2 -L 50 --t_heat 1e-3 --k_heat 20 \
			--metric_regul_ro 0 --metric_regul_ro_lap 1 --max_iter 3 -f 50
		;;
	*)
		echo "unknown case $c" >&2
		exit 2
		;;
	esac
	log=$work/$c.log
	(cd "$refdir" && /usr/bin/time -v "$py" "$@" -o "$work/out-$c") >"$log" 2>&1 || {
		tail -20 "$log" >&2
		echo "$c: the reference failed (log above)" >&2
		exit 1
	}
	# One line "TEXT|LO HI RSS": the summary to print, then the steady
	# range and peak RSS for the ratios below.
	refline=$(awk -v c="$c" -v solver="$solver" -v machine="$machine" '
		/^Time data save:/ { save = $4 }
		/^F: / { sub(",", "", $2); t[++n] = $2 + $4 - save; save = 0 }
		/^loss barys/ && !f0 { f0 = $4; sub(",", "", f0) }
		/Maximum resident set size/ { rss = $6 / 1024 }
		/Percent of CPU this job got/ { cpu = $7 }
		END {
			if (n < 3) printf "warning: %s: only %d evaluations timed, no steady one\n", c, n > "/dev/stderr"
			printf "reference %s [%s, %s]: F(x0) loss %s; per evaluation (s):", c, solver, machine, f0
			for (i = 1; i <= n; i++) printf " %.2f", t[i]
			lo = hi = t[3]
			for (i = 4; i <= n; i++) { if (t[i] < lo) lo = t[i]; if (t[i] > hi) hi = t[i] }
			printf "; steady %.2f–%.2f s; peak RSS %.0f MB; CPU %s of one core|%f %f %f\n", lo, hi, rss, cpu, lo, hi, rss
		}' "$log")
	echo "${refline%%|*}"
	case ${refline%%|*} in
	*" loss $want;"*) ;;
	*) echo "warning: the reference's F(x0) is not $want: it did not compute the same objective as gmlg" >&2 ;;
	esac
	[ "${GMLG:-1}" = 0 ] && continue
	bench=$c
	[ "$c" = seldovia2 ] && bench=seldovia2-K20
	line=$(cd "$repo" && go test -run '^$' -bench "BenchmarkEval/$bench/cholmod\$" -benchtime 3x ./learn/ 2>&1 |
		grep "^BenchmarkEval/$bench/cholmod") || {
		echo "gmlg $c: the benchmark did not run (is ../shared/data beside the repository?)" >&2
		exit 1
	}
	echo "${refline#*|} $line" | awk -v c="$c" -v solver="$solver" '{
		lo = $1; hi = $2; rrss = $3; ns = $6 / 1e9; cpu = $8 / 1e9; rss = $10
		printf "gmlg      %s: %.3f s per evaluation (CPU %.3f s), peak RSS %.0f MB; against the reference with the %s: speed-up %.1f–%.1fx, memory 1/%.0f\n",
			c, ns, cpu, rss, solver, lo / ns, hi / ns, rrss / rss
	}'
done
