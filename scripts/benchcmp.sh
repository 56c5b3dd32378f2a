#!/bin/bash
# benchcmp.sh runs the same Go benchmark in several test binaries (or one
# binary under several environments) in alternation, each in a fresh
# process, and prints the min and median ns/op of each. This machine's noise
# comes in slow waves; alternating fresh processes spreads it over every
# configuration instead of giving it to one.
#
#   go test -c -o /tmp/a.test ./torch            # one build
#   (change something) go test -c -o /tmp/b.test ./torch
#   scripts/benchcmp.sh 8 'Add4x4/(CxxDirect|Auto$)' "/tmp/a.test" "/tmp/b.test" \
#       "/tmp/a.test LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2"
#
# BENCHTIME sets -test.benchtime (default 200000x). METRIC picks the column
# by its unit (default ns/op; METRIC=x-cxx for BenchmarkAdd4x4Interleaved).
set -euo pipefail
if [ $# -lt 3 ]; then
	echo "usage: $0 ROUNDS BENCH-REGEXP 'BINARY [VAR=VALUE...]'..." >&2
	exit 2
fi
rounds=$1 re=$2
shift 2
cfgs=("$@")
for _ in $(seq "$rounds"); do
	for c in "${cfgs[@]}"; do
		read -r bin vars <<<"$c"
		# shellcheck disable=SC2086 # vars is a list of VAR=VALUE words
		env $vars "$bin" -test.run '^$' -test.bench "$re" -test.benchtime "${BENCHTIME:-200000x}" 2>&1 |
			awk -v c="$c" -v m="${METRIC:-ns/op}" '/^Benchmark/ {for (i = 4; i <= NF; i++) if ($i == m) print c "|" $1 "|" $(i - 1)}'
	done
done | python3 -c '
import collections, statistics, sys
d = collections.defaultdict(list)
for line in sys.stdin:
    c, b, v = line.rstrip("\n").split("|")
    d[(c, b)].append(float(v))
for (c, b), v in sorted(d.items()):
    print(f"{c:<50} {b:<32} min {min(v):9.4g}  median {statistics.median(v):9.4g}  max {max(v):9.4g}  runs {len(v)}")
'
