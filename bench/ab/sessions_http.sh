#!/bin/bash
# What a session costs per call over HTTP (BENCHMARKS.md, "Sessions by default"): the same
# build served stateless (`serve --http ADDR --stateless`) and with sessions (`serve --http
# ADDR`, the default), wrk -t1 -c64 -d5s, every request a tools/call with its own id (a
# session refuses an id already in flight), 2025-11-25 (sessions are of that revision:
# 2026-07-28 requests carry their state and are served alike in both modes). With
# sessions, one session is opened (initialize, notifications/initialized) and every call
# names it; its answers are event streams, as a session's are. The tools: tool_0 of the
# async fixture (fixture-toolsmith-run) and the notes example's get_note (a sync fn), in
# interleaved rounds. Server CPU from /proc/PID/stat.
# With REDIS_URL set (redis://127.0.0.1:PORT/0), a third mode, `shared`: sessions kept in
# that Redis (`--task-store`), as replicas share them (the build needs the `redis` feature).
# Usage: [REDIS_URL=...] sessions_http.sh DIR [ROUNDS]
#   (DIR holds fixture-toolsmith-run and notes; needs wrk, curl)
set -u
DIR=$1
R=${2:-4}
LUA=$(mktemp -d)
V=2025-11-25
mk() { # file tool args session
  local b='{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"'$2'","arguments":'$3'}}'
  { echo 'wrk.method = "POST"'
    echo 'wrk.headers["Content-Type"] = "application/json"'
    echo 'wrk.headers["Accept"] = "application/json, text/event-stream"'
    echo "wrk.headers[\"MCP-Protocol-Version\"] = \"$V\""
    [ -n "$4" ] && echo "wrk.headers[\"Mcp-Session-Id\"] = \"$4\""
    printf 'local body = "%s"\n' "$(echo "$b" | sed 's/"/\\"/g')"
    echo 'local n = 0'
    echo 'request = function() n = n + 1; return wrk.format(nil, nil, nil, string.format(body, n)) end'
  } > "$LUA/$1.lua"
}
post() { # port session body -> headers
  curl -s -D - -o /dev/null -X POST -H 'Content-Type: application/json' \
    -H 'Accept: application/json, text/event-stream' ${2:+-H "Mcp-Session-Id: $2"} \
    ${2:+-H "MCP-Protocol-Version: $V"} -d "$3" "http://127.0.0.1:$1/mcp"
}
for i in $(seq 1 "$R"); do
  if [ $((i % 2)) = 1 ]; then order="stateless sessions"; else order="sessions stateless"; fi
  [ -n "${REDIS_URL:-}" ] && order="$order shared"
  for kind in async notes; do
    for mode in $order; do
      case $kind in
        async) bin=$DIR/fixture-toolsmith-run tool=tool_0 args='{"a":1,"b":2,"label":"bench"}' ;;
        notes) bin=$DIR/notes tool=get_note args='{"note_id":1}' ;;
      esac
      # Builds before sessions were the default: --sessions asks for them.
      if $bin serve --help 2>/dev/null | grep -q -- --stateless; then
        flag=""; [ "$mode" = stateless ] && flag=--stateless
      else
        flag=""; [ "$mode" = sessions ] && flag=--sessions
      fi
      # The async fixture is built without the `redis` feature: the notes example measures it.
      [ "$mode" = shared ] && [ "$kind" = async ] && continue
      [ "$mode" = shared ] && flag="--task-store $REDIS_URL"
      port=$((18000 + RANDOM % 1000))
      $bin serve --http 127.0.0.1:$port $flag >/dev/null 2>&1 &
      pid=$!
      for t in $(seq 1 50); do curl -s -o /dev/null http://127.0.0.1:$port/healthz && break; sleep 0.1; done
      sid=""
      if [ "$mode" != stateless ]; then
        init='{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"'$V'","capabilities":{},"clientInfo":{"name":"bench","version":"0"}}}'
        sid=$(post $port "" "$init" | awk -F': ' 'tolower($1)=="mcp-session-id" {print $2}' | tr -d '\r')
        post $port "$sid" '{"jsonrpc":"2.0","method":"notifications/initialized"}' >/dev/null
      fi
      mk run "$tool" "$args" "$sid"
      t0=$(awk '{print $14+$15}' /proc/$pid/stat)
      out=$(wrk -t1 -c64 -d5s -s "$LUA/run.lua" http://127.0.0.1:$port/mcp 2>&1)
      t1=$(awk '{print $14+$15}' /proc/$pid/stat)
      rps=$(echo "$out" | awk '/Requests\/sec/ {print $2}')
      reqs=$(echo "$out" | awk '/requests in/ {print $1}')
      non2xx=$(echo "$out" | awk '/Non-2xx/ {print $5}')
      echo "$i $kind $mode rps=$rps reqs=$reqs ticks=$((t1 - t0)) non2xx=${non2xx:-0} session=${sid:-none}" | tee -a "$LUA/runs.txt"
      kill $pid; wait $pid 2>/dev/null
    done
  done
done
# Medians, and sessions / stateless CPU per call and calls/s, per round.
python3 - "$LUA/runs.txt" <<'PY'
import re, statistics, collections, sys
rows = collections.defaultdict(dict)
for line in open(sys.argv[1]):
    m = re.match(r"(\d+) (\S+) (\S+) rps=(\S+) reqs=(\d+) ticks=(\d+) non2xx=(\d+)", line)
    if m:
        i, k, mode, rps, reqs, ticks, bad = m.groups()
        rows[(k, mode)][int(i)] = (float(rps), int(ticks) * 10000 / int(reqs), int(bad))
for key in sorted(rows):
    r = rows[key].values()
    print(*key, "calls/s", round(statistics.median(x[0] for x in r)), "cpu_us/call",
          round(statistics.median(x[1] for x in r), 2), "non2xx", sum(x[2] for x in r))
for k in ["async", "notes"]:
    for mode in ["sessions", "shared"]:
        if (k, mode) not in rows:
            continue
        s, n = rows[(k, mode)], rows[(k, "stateless")]
        cpu = sorted(s[i][1] / n[i][1] for i in s)
        rps = sorted(s[i][0] / n[i][0] for i in s)
        print(k, mode, "/ stateless: CPU per call median", round(statistics.median(cpu), 3),
              "range", round(cpu[0], 3), "-", round(cpu[-1], 3),
              "| calls/s median", round(statistics.median(rps), 3))
PY
