#!/bin/bash
# loadtest.sh: the Go server (examples/serve) beside its Python twin
# (server.py) under wrk, on loopback, with the same weights, the same
# batching policy and the same libtorch threads.
#
#   examples/serve/loadtest.sh [options]            throughput and latency
#   examples/serve/loadtest.sh -m 100000 [options]  memory over 100,000 requests
#
#   -w FILE    weights (default fashion_mnist.safetensors, what `make train` writes)
#   -c LIST    connection counts (default "1 4 16 64")
#   -d DUR     wrk duration per run (default 10s)
#   -r N       rounds; the servers take turns, the first alternating (default 2)
#   -t N       libtorch threads of each server (default 1)
#   -b N       max batch (default 32)      -W DUR  max wait (default 2ms)
#   -o FILE    results, appended as TSV (default loadtest.tsv)
#   -m N       instead: send N requests to each server after a warm-up and
#              report RSS and (Go) live tensors before and after
#   -s LIST    servers (default "go python")
#   -O LIST    instead: overload, the Go server alone at each connection
#              count of LIST (e.g. "300 1000"), -r rounds alternating, with
#              examples/serve/cmd/loadgen (2 s timeouts, like wrk's), its
#              default limits, and a summary of the successes per count
#   -p         pin the server to CPU 0 and the load generator to CPU 1, so
#              that the generator's own work (it redials timed-out
#              connections) does not take the server's CPU
#
# Needs wrk (apt-get install wrk) and /usr/bin/python3 with torch
# (scripts/setup.sh --with-python). Each run's `uptime` goes in the TSV:
# other work on the machine changes the numbers. Chart and table:
#   go run ./examples/serve/loadchart -in loadtest.tsv -out docs/serving.png
set -euo pipefail

weights=fashion_mnist.safetensors conns="1 4 16 64" dur=10s rounds=2 threads=1
maxbatch=32 maxwait=2ms out=loadtest.tsv memreqs=0 servers="go python" overload= pin=
while getopts w:c:d:r:t:b:W:o:m:s:O:ph opt; do
	case $opt in
	w) weights=$OPTARG ;; c) conns=$OPTARG ;; d) dur=$OPTARG ;; r) rounds=$OPTARG ;;
	t) threads=$OPTARG ;; b) maxbatch=$OPTARG ;; W) maxwait=$OPTARG ;; o) out=$OPTARG ;;
	m) memreqs=$OPTARG ;; s) servers=$OPTARG ;; O) overload=$OPTARG ;; p) pin=1 ;;
	*) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 2 ;;
	esac
done

here=$(cd "$(dirname "$0")" && pwd)
command -v wrk >/dev/null || { echo "loadtest: wrk is missing: apt-get install wrk" >&2; exit 1; }
[ -n "$pin" ] && { command -v taskset >/dev/null && [ "$(nproc)" -ge 2 ] || { echo "loadtest: -p needs taskset and 2 CPUs" >&2; exit 1; }; }
(cd / && /usr/bin/python3 -c 'import torch; torch.zeros(1)') 2>/dev/null || { echo "loadtest: /usr/bin/python3 cannot import torch: scripts/setup.sh --with-python" >&2; exit 1; }
[ -r "$weights" ] || { echo "loadtest: no weights file $weights (make train writes fashion_mnist.safetensors)" >&2; exit 1; }

tmp=$(mktemp -d)
pid=
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT

go build -o "$tmp/serve" "$here"

# The request: the first Fashion-MNIST test image (an ankle boot) as JSON,
# which both servers read (Python's standard library decodes no PNG).
/usr/bin/python3 - "$tmp/body.json" <<'PY'
import gzip, json, sys
with gzip.open("/usr/share/datasets/fashion-mnist/t10k-images-idx3-ubyte.gz") as f:
    px = f.read()[16:16 + 784]
json.dump({"image": [round(b / 255, 4) for b in px]}, open(sys.argv[1], "w"))
PY
cat >"$tmp/post.lua" <<LUA
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local f = assert(io.open("$tmp/body.json")); wrk.body = f:read("*a"); f:close()
LUA
port_go=18480 port_py=18481
srvpin=() genpin=() # -p: taskset execs the command, so $! is the server's pid
[ -n "$pin" ] && srvpin=(taskset -c 0) genpin=(taskset -c 1)
start() { # start SERVER: go or python
	case $1 in
	go) GOTORCH_NUM_THREADS=$threads "${srvpin[@]}" "$tmp/serve" -addr 127.0.0.1:$port_go -weights "$weights" -threads "$threads" \
		-max-batch "$maxbatch" -max-wait "$maxwait" -queue 256 >"$tmp/go.log" 2>&1 &
		url=http://127.0.0.1:$port_go ;;
	python) OMP_NUM_THREADS=$threads "${srvpin[@]}" /usr/bin/python3 "$here/server.py" --addr 127.0.0.1:$port_py --weights "$weights" \
		--threads "$threads" --max-batch "$maxbatch" --max-wait "$maxwait" --queue 256 >"$tmp/python.log" 2>&1 &
		url=http://127.0.0.1:$port_py ;;
	esac
	pid=$!
	for _ in $(seq 600); do
		curl -sf "$url/healthz" >/dev/null 2>&1 && return 0
		kill -0 "$pid" 2>/dev/null || { cat "$tmp/$1.log" >&2; exit 1; }
		sleep 0.1
	done
	echo "loadtest: $1 server did not start" >&2; exit 1
}
stop() { kill -TERM "$pid"; wait "$pid" || true; pid=; }
rss_kb() { awk '/^VmRSS/ {print $2}' "/proc/$pid/status"; }
live() { [ "$1" = go ] && curl -s "$url/metrics" | awk '/^gotorch_live_tensors / {print $2}' || echo -; }
ms() { # wrk's 1.23ms, 456.78us, 1.2s as milliseconds
	awk -v v="$1" 'BEGIN { n = v + 0; if (v ~ /us$/) n /= 1000; else if (v ~ /ms$/) n += 0; else if (v ~ /s$/) n *= 1000; printf "%.3f", n }'
}

if [ -n "$overload" ]; then
	# Overload: is a server past its capacity still answering as many
	# requests as at its capacity? The Go server with its default limits
	# (-max-in-flight, -max-waiting, -admit-wait, -max-conns), the counts
	# of LIST taking turns within each round, each on a fresh server.
	go build -o "$tmp/loadgen" "$here/cmd/loadgen"
	[ -s "$out" ] || printf 'server\tround\tconnections\trequests_per_s\tok\tstatus_503\tother\ttimeouts\terrors\tp50_ms\tp99_ms\tmax_ms\tpinned\tload_1m\tstarted\n' >"$out"
	for round in $(seq "$rounds"); do
		order=$overload
		[ $((round % 2)) = 0 ] && order=$(echo $overload | tr ' ' '\n' | tac | tr '\n' ' ')
		for c in $order; do
			start go
			"${genpin[@]}" "$tmp/loadgen" -url "$url/predict" -body "$tmp/body.json" -c 16 -d 2s >/dev/null # warm-up
			load=$(awk '{print $1}' /proc/loadavg) when=$(date -u +%FT%TZ)
			line=$("${genpin[@]}" "$tmp/loadgen" -url "$url/predict" -body "$tmp/body.json" -c "$c" -d "$dur" -tsv)
			printf 'go\t%s\t%s\t%s\t%s\t%s\n' "$round" "$line" "${pin:-0}" "$load" "$when" | tee -a "$out" "$tmp/overload.tsv"
			stop
		done
	done
	# This run's successes per connection count: each round's and the median.
	sort -t$'\t' -k3,3n -k5,5n "$tmp/overload.tsv" | awk -F'\t' '
		{ n[$3]++; v[$3, n[$3]] = $5; if (!($3 in seen)) { seen[$3] = 1; order[++k] = $3 } }
		END { for (i = 1; i <= k; i++) { c = order[i]; s = ""; for (j = 1; j <= n[c]; j++) s = s " " v[c, j]
			m = n[c] % 2 ? v[c, (n[c] + 1) / 2] : (v[c, n[c] / 2] + v[c, n[c] / 2 + 1]) / 2
			printf "overload: %s connections: successes%s (sorted), median %s\n", c, s, m } }'
	exit 0
fi

if [ "$memreqs" -gt 0 ]; then
	for server in $servers; do
		start $server
		wrk -t1 -c16 -d3s -s "$tmp/post.lua" "$url/predict" >/dev/null # warm-up
		before=$(rss_kb) live0=$(live $server)
		t0=$(date +%s) reqs=0 bad=0 peak=$before
		# wrk runs for a time, not a count: 10 s runs until memreqs are done.
		while [ "$reqs" -lt "$memreqs" ]; do
			wrk -t1 -c16 -d10s --timeout 10s -s "$tmp/post.lua" "$url/predict" >"$tmp/wrk.txt"
			reqs=$((reqs + $(awk '/requests in/ {print $1}' "$tmp/wrk.txt" | tr -d ,)))
			bad=$((bad + $(awk '/Non-2xx/ {print $NF}' "$tmp/wrk.txt" || true) + 0))
			now=$(rss_kb); [ "$now" -gt "$peak" ] && peak=$now
			echo "  $server: $reqs requests, RSS $((now / 1024)) MiB, live tensors $(live $server)"
		done
		after=$(rss_kb) live1=$(live $server)
		echo "$server: $reqs requests in $(( $(date +%s) - t0 )) s, $bad non-2xx; RSS after warm-up $((before / 1024)) MiB, peak $((peak / 1024)) MiB, at the end $((after / 1024)) MiB; live tensors $live0 -> $live1; load: $(uptime | sed 's/.*load average: //')"
		stop
	done
	exit 0
fi

[ -s "$out" ] || printf 'server\tround\tconnections\trequests_per_s\tp50_ms\tp99_ms\tnon2xx\tsocket_errors\tload_1m\tstarted\n' >"$out"
for round in $(seq "$rounds"); do
	order=$servers
	[ $((round % 2)) = 0 ] && order=$(echo $servers | tr ' ' '\n' | tac | tr '\n' ' ')
	for server in $order; do
		start $server
		wrk -t1 -c16 -d3s -s "$tmp/post.lua" "$url/predict" >/dev/null # warm-up
		for c in $conns; do
			load=$(awk '{print $1}' /proc/loadavg) when=$(date -u +%FT%TZ)
			wrk -t1 -c"$c" -d"$dur" --timeout 10s --latency -s "$tmp/post.lua" "$url/predict" >"$tmp/wrk.txt"
			rps=$(awk '/^Requests\/sec/ {print $2}' "$tmp/wrk.txt")
			p50=$(ms "$(awk '$1 == "50%" {print $2}' "$tmp/wrk.txt")")
			p99=$(ms "$(awk '$1 == "99%" {print $2}' "$tmp/wrk.txt")")
			bad=$(awk '/Non-2xx/ {print $NF}' "$tmp/wrk.txt")
			sock=$(awk -F'[ ,]+' '/Socket errors/ {print $4+$6+$8+$10}' "$tmp/wrk.txt")
			printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' $server "$round" "$c" "$rps" "$p50" "$p99" "${bad:-0}" "${sock:-0}" "$load" "$when" | tee -a "$out"
		done
		stop
	done
done
