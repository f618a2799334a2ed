"""A call through an OpenAPI upstream against the same HTTP API called directly.

Starts the notes API (interop/python/notes_api.py, FastAPI on uvicorn), then, in
interleaved rounds: `GET /notes/1` sent directly by an HTTP client that keeps its connection
alive (Python's http.client), and the same operation called as the tool `api_get_note` through
`toolsmith gateway` over stdio by the official Python SDK. Prints, per round, the median
latency of each (sequential calls), and the gateway's own CPU per call (/proc/PID/stat of the
gateway process over the round's calls).

    python measure.py PATH_TO_TOOLSMITH [--calls 2000] [--rounds 3]
"""

import argparse
import asyncio
import http.client
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def gateway_pid(config):
    out = subprocess.run(["pgrep", "-f", f"gateway --config {config}"], capture_output=True, text=True)
    return int(out.stdout.split()[0])


def direct(base, calls):
    host, port = base.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port))

    def get():
        connection.request("GET", "/notes/1")
        answer = connection.getresponse()
        body = answer.read()
        assert answer.status == 200 and b"Groceries" in body, body

    get()
    times = []
    for _ in range(calls):
        began = time.perf_counter()
        get()
        times.append(time.perf_counter() - began)
    connection.close()
    return statistics.median(times)


async def through_gateway(toolsmith, config, calls):
    params = StdioServerParameters(command=toolsmith, args=["gateway", "--config", config],
                                   env={"TOOLSMITH_LOG": "off", "PATH": os.environ.get("PATH", "")})
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            first = await session.call_tool("api_get_note", {"note_id": 1})
            assert not first.is_error and first.structured_content["title"] == "Groceries", first
            pid = gateway_pid(config)
            cpu = cpu_seconds(pid)
            times = []
            for _ in range(calls):
                began = time.perf_counter()
                await session.call_tool("api_get_note", {"note_id": 1})
                times.append(time.perf_counter() - began)
            cpu = cpu_seconds(pid) - cpu
    return statistics.median(times), cpu / calls


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("toolsmith")
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    api = subprocess.Popen([sys.executable, os.path.join(ROOT, "interop/python/notes_api.py")],
                           stdout=subprocess.PIPE, text=True)
    base = f"http://127.0.0.1:{api.stdout.readline().split()[-1]}"
    try:
        with tempfile.TemporaryDirectory() as tmp:
            config = os.path.join(tmp, "gateway.json")
            with open(config, "w") as f:
                json.dump({"mcpServers": {"api": {"openapi": f"{base}/openapi.json"}}}, f)
            rows = []
            for round_ in range(args.rounds):
                d = direct(base, args.calls)
                g, cpu = asyncio.run(through_gateway(args.toolsmith, config, args.calls))
                rows.append((d, g, cpu))
                print(f"round {round_ + 1}: direct {d * 1e6:.0f} µs, through the gateway "
                      f"{g * 1e6:.0f} µs (+{(g - d) * 1e6:.0f} µs), gateway CPU {cpu * 1e6:.0f} µs/call")
            med = lambda i: statistics.median(r[i] for r in rows)
            print(f"median of rounds: direct {med(0) * 1e6:.0f} µs, through the gateway "
                  f"{med(1) * 1e6:.0f} µs, gateway CPU {med(2) * 1e6:.0f} µs/call")
    finally:
        api.kill()


if __name__ == "__main__":
    main()
