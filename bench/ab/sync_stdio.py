#!/usr/bin/env python3
"""Sync against async tools over stdio, two builds A/B (BENCHMARKS.md, "Sync tools in place").

Usage: sync_stdio.py BEFORE_DIR AFTER_DIR [ROUNDS] [CALLS] [OUT.json]
Each directory holds release binaries of one revision: toolsmith-bench, fixture-toolsmith,
fixture-toolsmith-sync and the notes example (`notes`). AFTER_DIR's toolsmith-bench loads every
server. Rounds are interleaved, the order swapped every round.
"""
import json, subprocess, statistics, sys
DIRS={"before":sys.argv[1],"after":sys.argv[2]}
R=int(sys.argv[3]) if len(sys.argv)>3 else 10
CALLS=sys.argv[4] if len(sys.argv)>4 else "200000"
OUT=sys.argv[5] if len(sys.argv)>5 else "sync_stdio.json"
NOTES_TOOLS="7"
EXPECT='{"id":1,'
revs=["2025-11-25","2026-07-28"]
client=f"{DIRS['after']}/toolsmith-bench"
servers={}
for w in ("before","after"):
    d=DIRS[w]
    servers[(w,"async")]=(["--tools","3"],[f"{d}/fixture-toolsmith"])
    servers[(w,"sync")]=(["--tools","3"],[f"{d}/fixture-toolsmith-sync"])
    if NOTES_TOOLS:
        servers[(w,"notes")]=(["--tools",NOTES_TOOLS,"--call","get_note","--arguments",'{"note_id":1}',"--expect",EXPECT],[f"{d}/notes"])
res={(k,r):[] for k in servers for r in revs}
for i in range(R):
    keys=list(servers)
    if i%2: keys.reverse()
    for rev in revs:
        for k in keys:
            a,cmd=servers[k]
            out=subprocess.run([client,"load",*a,"--revision",rev,"--calls",CALLS,"--list-reps","200","--call-reps","2000","--",*cmd],capture_output=True,text=True,timeout=600)
            if "{" not in out.stdout:
                print("FAIL",k,rev,out.stderr[-500:]); sys.exit(1)
            res[(k,rev)].append(json.loads(out.stdout[out.stdout.index("{"):]))
    print("round",i+1,"done",flush=True)
def med(k,rev,f): return statistics.median(x[f] for x in res[(k,rev)])
def rng(k,rev,f):
    v=[x[f] for x in res[(k,rev)]]; return (round(min(v),2),round(max(v),2))
for rev in revs:
    for k in servers:
        print(rev,k,"cpu/call",round(med(k,rev,"cpu_per_call_us"),2),rng(k,rev,"cpu_per_call_us"),"calls/s",round(med(k,rev,"calls_per_sec")),"median",round(med(k,rev,"call_median_us"),1),"rss",med(k,rev,"peak_rss_kb"))
    for w in ("before","after"):
        r=statistics.median(s["cpu_per_call_us"]/a["cpu_per_call_us"] for s,a in zip(res[((w,"sync"),rev)],res[((w,"async"),rev)]))
        print(rev,w,"sync/async cpu per call, per-round median",round(r,3))
        if NOTES_TOOLS:
            r=statistics.median(s["cpu_per_call_us"]/a["cpu_per_call_us"] for s,a in zip(res[((w,"notes"),rev)],res[((w,"async"),rev)]))
            print(rev,w,"notes get_note/async cpu per call",round(r,3))
json.dump({f"{k[0]}|{k[1]}|{r}":v for (k,r),v in res.items()},open(OUT,"w"))
