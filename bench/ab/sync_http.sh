#!/bin/bash
# Sync against async tools over HTTP, two builds A/B (BENCHMARKS.md, "Sync tools in place").
# Stateless JSON, wrk -t1 -c64 -d5s: tool_0 of the async fixture served by toolsmith::run()
# (fixture-toolsmith-run), of the sync one (fixture-toolsmith-sync), and the notes example's
# get_note, both revisions, interleaved rounds. Server CPU from /proc/PID/stat.
# Usage: sync_http.sh BEFORE_DIR AFTER_DIR [ROUNDS]   (needs wrk and curl)
set -u
declare -A DIR=([before]=$1 [after]=$2)
R=${3:-4}
LUA=$(mktemp -d)
mk() { # file tool args version
  local b='{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"'$2'","arguments":'$3'}}'
  if [ "$4" = "2026-07-28" ]; then b='{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"'$2'","arguments":'$3',"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}'; fi
  { echo "wrk.method = \"POST\""; printf 'wrk.body = "%s"\n' "$(echo "$b" | sed 's/"/\\"/g')";
    echo 'wrk.headers["Content-Type"] = "application/json"'; echo 'wrk.headers["Accept"] = "application/json, text/event-stream"';
    echo "wrk.headers[\"MCP-Protocol-Version\"] = \"$4\"";
    if [ "$4" = "2026-07-28" ]; then echo 'wrk.headers["Mcp-Method"] = "tools/call"'; echo "wrk.headers[\"Mcp-Name\"] = \"$2\""; fi; } > $LUA/$1.lua
}
for v in 2025-11-25 2026-07-28; do
  mk "fx-$v" tool_0 '{"a":1,"b":2,"label":"bench"}' $v
  mk "notes-$v" get_note '{"note_id":1}' $v
done
for i in $(seq 1 $R); do
  if [ $((i%2)) = 1 ]; then order="before after"; else order="after before"; fi
  for v in 2025-11-25 2026-07-28; do
    for kind in async sync notes; do
      for w in $order; do
        d=${DIR[$w]}
        case $kind in async) bin=$d/fixture-toolsmith-run; lua=fx-$v;; sync) bin=$d/fixture-toolsmith-sync; lua=fx-$v;; notes) bin=$d/notes; lua=notes-$v;; esac
        port=$((18000 + RANDOM % 1000))
        # Stateless, as measured: builds since sessions became the default need the flag.
        flag=""; $bin serve --help 2>/dev/null | grep -q -- --stateless && flag=--stateless
        $bin serve --http 127.0.0.1:$port $flag > /dev/null 2>/dev/null &
        pid=$!
        for t in $(seq 1 50); do curl -s -o /dev/null http://127.0.0.1:$port/healthz && break; sleep 0.1; done
        t0=$(awk '{print $14+$15}' /proc/$pid/stat)
        out=$(wrk -t1 -c64 -d5s -s $LUA/$lua.lua http://127.0.0.1:$port/mcp 2>&1)
        t1=$(awk '{print $14+$15}' /proc/$pid/stat)
        rps=$(echo "$out" | awk '/Requests\/sec/ {print $2}')
        reqs=$(echo "$out" | awk '/requests in/ {print $1}')
        non2xx=$(echo "$out" | awk '/Non-2xx/ {print $5}')
        echo "$i $v $kind $w rps=$rps reqs=$reqs ticks=$((t1-t0)) non2xx=${non2xx:-0}" | tee -a $LUA/runs.txt
        kill $pid; wait $pid 2>/dev/null
      done
    done
  done
done
# Medians, and each build's sync (and get_note) CPU per request over its async one, per round.
python3 - $LUA/runs.txt <<'PY'
import re, statistics, collections, sys
rows = collections.defaultdict(list)
for line in open(sys.argv[1]):
    m = re.match(r"(\d+) (\S+) (\S+) (\S+) rps=(\S+) reqs=(\d+) ticks=(\d+) non2xx=(\d+)", line)
    if m:
        i, v, k, w, rps, reqs, ticks, bad = m.groups()
        rows[(v, k, w)].append((int(i), float(rps), int(ticks) * 10000 / int(reqs), int(bad)))
for key in sorted(rows):
    r = rows[key]
    print(key, "calls/s", round(statistics.median(x[1] for x in r)), "cpu_us/req",
          round(statistics.median(x[2] for x in r), 2), "non2xx", sum(x[3] for x in r))
for v in ["2025-11-25", "2026-07-28"]:
    for w in ["before", "after"]:
        for k in ["sync", "notes"]:
            a = {x[0]: x for x in rows[(v, k, w)]}
            b = {x[0]: x for x in rows[(v, "async", w)]}
            print(v, w, k, "/ async CPU per request", round(statistics.median(a[i][2] / b[i][2] for i in a), 3))
PY
