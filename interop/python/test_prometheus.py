"""Metrics: Debian's Prometheus scrapes two notes replicas behind nginx.

Starts two `notes serve --http 127.0.0.1:PORT --public-url http://mcp.example.test:NGINX/mcp`
replicas (the notes example built with the examples crate's `full` feature, so each serves
GET /metrics beside /mcp), nginx from interop/nginx/nginx.conf in front of them (round robin;
it proxies /mcp and /healthz only), and Prometheus from interop/prometheus/prometheus.yml,
scraping each replica's /metrics every second, in a folder of its own (config, data) on a
free loopback port.

Through nginx, raw JSON tools/call requests (2025-11-25, stateless): 8 search_notes (ok), 4
get_note of a note that does not exist (the tool's own error) and 2 of a tool no replica has
(`unknown`, a protocol error). Then asks Prometheus' HTTP API, bounded to 60 s, until

    sum by (tool, outcome) (toolsmith_tool_calls_total)

gives exactly those counts summed over the replicas, and `up` is 1 for both. Checks too that
/metrics is not reachable through nginx, that each replica counted some of the calls (round
robin), and that the error-rate query of the guide (its operating page) evaluates to the rate of get_note's
errors (4 of 4) and search_notes' (0 of 8).

Prometheus, nginx and the replicas are stopped at the end whatever happens; their pids are
in WORKDIR/*.pid for interop/run to clean up after a kill.

Usage: python test_prometheus.py PATH_TO_NOTES PATH_TO_NGINX PATH_TO_PROMETHEUS WORKDIR
"""

import json
import os
import signal
import subprocess
import sys
import time
import urllib.parse
import urllib.request

from checks import check, stop_replicas, tally
from nginx_proxy import Nginx
from notes_http import NotesServer, StartError, free_port, request, stop_process

HERE = os.path.dirname(os.path.abspath(__file__))
NGINX_TEMPLATE = os.path.join(HERE, "..", "nginx", "nginx.conf")
PROMETHEUS_TEMPLATE = os.path.join(HERE, "..", "prometheus", "prometheus.yml")
PUBLIC_HOST = "mcp.example.test"
WAIT = 60.0

CALLS = [("search_notes", {"query": "o"}, "ok")] * 8 \
    + [("get_note", {"note_id": 999}, "tool_error")] * 4 \
    + [("no_such_tool", {}, "protocol_error")] * 2
EXPECTED = {("search_notes", "ok"): 8, ("get_note", "tool_error"): 4, ("unknown", "protocol_error"): 2}

# The same calls in OpenTelemetry's MCP metric, as a dashboard made for any MCP server reads it:
# by tool and error type (none for a result, tool_error, or the JSON-RPC code).
CONVENTIONS = ('sum by (gen_ai_tool_name, error_type) '
               '(mcp_server_operation_duration_seconds_count{mcp_method_name="tools/call"})')
EXPECTED_CONVENTIONS = {("search_notes", None): 8, ("get_note", "tool_error"): 4, ("unknown", "-32602"): 2}

# The guide's error rate by tool (runtime/src/guide/operating.md): the share of calls that ended in an error.
ERROR_RATE = ('sum by (tool) (rate(toolsmith_tool_calls_total{outcome!~"ok|input_required|task"}[5m]))'
              ' / sum by (tool) (rate(toolsmith_tool_calls_total[5m]))')


class Prometheus:
    """Debian's prometheus, its config from the template, its data under `workdir`."""

    def __init__(self, binary, workdir):
        self.binary = binary
        self.workdir = workdir
        self.proc = None
        self.port = free_port()
        self.log_path = os.path.join(workdir, "prometheus.stderr")

    def start(self, replica_ports, timeout=30.0):
        with open(PROMETHEUS_TEMPLATE) as f:
            text = f.read()
        text = text.replace("@REPLICA_1@", str(replica_ports[0])).replace("@REPLICA_2@", str(replica_ports[1]))
        config = os.path.join(self.workdir, "prometheus.yml")
        with open(config, "w") as f:
            f.write(text)
        with open(self.log_path, "wb") as log:
            self.proc = subprocess.Popen(
                [self.binary, f"--config.file={config}", f"--storage.tsdb.path={self.workdir}/data",
                 f"--web.listen-address=127.0.0.1:{self.port}"],
                stdin=subprocess.DEVNULL, stdout=log, stderr=log)
        with open(os.path.join(self.workdir, "prometheus.pid"), "w") as f:
            f.write(f"{self.proc.pid}\n")
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"prometheus exited with {self.proc.returncode}:\n{self.log()}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/-/ready", timeout=2) as r:
                    if r.status == 200:
                        return
            except OSError:
                pass
            time.sleep(0.2)
        raise RuntimeError(f"prometheus was not ready within {timeout:.0f} s:\n{self.log()}")

    def query(self, promql):
        """The result vector of an instant query: a list of (labels, value)."""
        url = f"http://127.0.0.1:{self.port}/api/v1/query?" + urllib.parse.urlencode({"query": promql})
        with urllib.request.urlopen(url, timeout=5) as r:
            body = json.load(r)
        check(body.get("status") == "success", f"query {promql}: {body}")
        return [(item["metric"], float(item["value"][1])) for item in body["data"]["result"]]

    def log(self):
        try:
            with open(self.log_path, errors="replace") as f:
                return f.read()[-2000:]
        except FileNotFoundError:
            return ""

    def stop(self):
        stop_process(self.proc, os.path.join(self.workdir, "prometheus.pid"))


def counts(prometheus):
    """(tool, outcome) -> calls, summed over the replicas, as Prometheus has them now."""
    rows = prometheus.query("sum by (tool, outcome) (toolsmith_tool_calls_total)")
    return {(m.get("tool"), m.get("outcome")): v for m, v in rows if v > 0}


def main(notes, nginx_binary, prometheus_binary, workdir):
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    prefix = os.path.join(workdir, "nginx")
    os.makedirs(prefix, exist_ok=True)
    nginx = Nginx(nginx_binary, prefix, NGINX_TEMPLATE)
    prometheus = Prometheus(prometheus_binary, workdir)
    replicas = []
    try:
        port = free_port()
        public = f"http://{PUBLIC_HOST}:{port}/mcp"
        host = f"{PUBLIC_HOST}:{port}"
        for i in (1, 2):
            own = free_port()
            replica = NotesServer(notes, ["serve", "--http", f"127.0.0.1:{own}", "--public-url", public],
                                  workdir=workdir, name=f"replica-{i}", local_port=own)
            replicas.append(replica)
            replica.start()
        ports = [r.port for r in replicas]
        nginx.write_config({"NGINX_PORT": port, "REPLICA_1": ports[0], "REPLICA_2": ports[1]})
        nginx.start(port)
        prometheus.start(ports)
        # Both scraped once before any call, so that the counters' rise is seen (a rate
        # needs two samples).
        deadline = time.monotonic() + WAIT
        while len(prometheus.query('up{job="toolsmith"} == 1')) < 2 and time.monotonic() < deadline:
            time.sleep(0.2)

        url = f"http://127.0.0.1:{port}/mcp"
        headers = {"Host": host, "MCP-Protocol-Version": "2025-11-25"}
        for i, (tool, arguments, _) in enumerate(CALLS):
            body = {"jsonrpc": "2.0", "id": i + 1, "method": "tools/call",
                    "params": {"name": tool, "arguments": arguments}}
            reply = request(url, "POST", body, headers=headers)
            check(reply.status == 200, f"tools/call {tool} through nginx: {reply}")
        # nginx proxies /mcp and /healthz only: /metrics is its own 403 or 404, never a replica's.
        hidden = request(f"http://127.0.0.1:{port}/metrics", "GET", headers={"Host": host})
        check(hidden.status in (403, 404) and b"toolsmith_" not in hidden.body,
              f"/metrics is not public through nginx: {hidden.status}")

        got, up, rates, conventions = {}, [], {}, {}
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            got = counts(prometheus)
            up = prometheus.query('up{job="toolsmith"} == 1')
            rates = {m.get("tool"): v for m, v in prometheus.query(ERROR_RATE)}
            conventions = {(m.get("gen_ai_tool_name"), m.get("error_type")): v
                           for m, v in prometheus.query(CONVENTIONS)}
            if got == EXPECTED and len(up) == 2 and rates.get("get_note") == 1.0 \
                    and rates.get("search_notes") == 0.0 and conventions == EXPECTED_CONVENTIONS:
                break
            time.sleep(0.5)
        check(conventions == EXPECTED_CONVENTIONS,
              f"{CONVENTIONS}: {conventions}, expected {EXPECTED_CONVENTIONS}")
        check(len(up) == 2, f"both replicas scraped and up: {up}")
        check(got == EXPECTED, f"sum by (tool, outcome) (toolsmith_tool_calls_total): {got}, expected {EXPECTED}")
        by_replica = prometheus.query('sum by (instance) (toolsmith_tool_calls_total)')
        served = {m.get("instance"): v for m, v in by_replica}
        check(len(served) == 2 and all(v > 0 for v in served.values()),
              f"each replica counted some calls (round robin): {served}")
        check(rates.get("get_note") == 1.0 and rates.get("search_notes") == 0.0,
              f"the error rate by tool: {rates}")
        print(f"prometheus: {sum(got.values()):.0f} calls across replicas {served}; error rate {rates}")
    except StartError as err:
        check(False, f"a replica did not start: {err}")
    except Exception as err:
        check(False, f"{type(err).__name__}: {err}")
        print(nginx.errors(), prometheus.log(), file=sys.stderr)
    finally:
        prometheus.stop()
        nginx.stop()
        stop_replicas(replicas)
    return tally("prometheus")


if __name__ == "__main__":
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    sys.exit(main(*sys.argv[1:]))
