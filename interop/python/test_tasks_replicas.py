"""Tasks across replicas: two notes replicas behind nginx, sharing Debian's redis-server.

Starts redis-server on a free loopback port (no persistence, its folder under WORKDIR), two
`notes serve --http` replicas with `--task-store redis://127.0.0.1:PORT/0 --task-lease 2
--task-poll-ms 200`, and nginx from interop/nginx/nginx.conf (round robin) in front of them,
which logs the replica that served each request ($upstream_addr). A client with the tasks
extension (MCP 2026-07-28, raw HTTP: the Python SDK has no tasks client) then checks:

1. import_notes called through nginx is answered with a task handle at once, and runs on the
   replica that took the call (its notes grow, the other's do not); its tasks/get, through
   nginx, is answered by the other replica too, and the result comes from the other one.
2. tasks/cancel sent to the replica that does not run the task stops it on the one that does:
   its status is `cancelled` at once, and the running replica makes no note after it.
3. The replica running a task is killed (SIGKILL) mid-task: tasks/get, answered by the other
   one, says `working` until the lease runs out, then `failed` with "the server running it
   stopped", never `working` forever.

Every wait is bounded; redis, nginx and the replicas are stopped at the end whatever
happens (their pids are in WORKDIR/*.pid for interop/run's clean-up).

Usage: python test_tasks_replicas.py PATH_TO_NOTES_BINARY PATH_TO_NGINX PATH_TO_REDIS_SERVER WORKDIR
"""

import os
import signal
import socket
import subprocess
import sys
import time

from checks import check, stop_replicas, tally
from nginx_proxy import Nginx, served
from notes_http import NotesServer, StartError, free_port, request, stop_process

HERE = os.path.dirname(os.path.abspath(__file__))
TEMPLATE = os.path.join(HERE, "..", "nginx", "nginx.conf")
PUBLIC_HOST = "mcp.example.test"
MODERN = "2026-07-28"
TASKS = "io.modelcontextprotocol/tasks"
LEASE_S = 2
STOPPED = "the server running it stopped"


class Redis:
    """redis-server on 127.0.0.1:`port`, nothing written to disk, in `folder`."""

    def __init__(self, binary, folder):
        self.binary = binary
        self.folder = folder
        self.port = free_port()
        self.proc = None
        self.pid_path = os.path.join(folder, "redis.pid")

    def start(self, timeout=20.0):
        os.makedirs(self.folder, exist_ok=True)
        log = open(os.path.join(self.folder, "redis.log"), "wb")
        self.proc = subprocess.Popen(
            [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", self.folder, "--daemonize", "no"],
            stdin=subprocess.DEVNULL, stdout=log, stderr=log)
        with open(self.pid_path, "w") as f:
            f.write(f"{self.proc.pid}\n")
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1) as s:
                    s.sendall(b"PING\r\n")
                    if s.recv(16).startswith(b"+PONG"):
                        return
            except OSError:
                pass
            if self.proc.poll() is not None:
                raise StartError(f"redis-server exited with {self.proc.returncode}")
            time.sleep(0.05)
        raise StartError("redis-server did not answer PING within 20 s")

    def stop(self):
        stop_process(self.proc, self.pid_path)


class Client:
    """Raw MCP 2026-07-28 over HTTP, declaring the tasks extension in every request."""

    def __init__(self, url, host):
        self.url = url
        self.host = host
        self.next_id = 0

    def send(self, method, params, name=None):
        self.next_id += 1
        params = dict(params)
        params["_meta"] = {
            "io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientCapabilities": {"extensions": {TASKS: {}}},
            "io.modelcontextprotocol/clientInfo": {"name": "toolsmith-interop-tasks", "version": "0"},
        }
        headers = {"Host": self.host, "MCP-Protocol-Version": MODERN, "Mcp-Method": method}
        if name is not None:
            headers["Mcp-Name"] = name
        body = {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}
        reply = request(self.url, "POST", body, headers=headers, timeout=10.0)
        return reply.status, reply.result() or {}

    def call(self, tool, arguments):
        status, answer = self.send("tools/call", {"name": tool, "arguments": arguments}, name=tool)
        return answer.get("result") or {}

    def get(self, task_id):
        status, answer = self.send("tasks/get", {"taskId": task_id}, name=task_id)
        return answer.get("result") or {"error": answer.get("error")}

    def cancel(self, task_id):
        status, answer = self.send("tasks/cancel", {"taskId": task_id}, name=task_id)
        return answer


def upstream(line):
    """The replica ($upstream_addr) that served the request of an access log line (after
    a failed try, the last one)."""
    return served(line)[2]


def served_by(nginx, by_port, before):
    """The replica that served the request nginx logged after its first `before` lines."""
    lines = nginx.lines_after(before)
    return by_port.get(upstream(lines[0])) if lines else None


def imported(replica):
    """How many imported notes `replica` holds (asked directly, not through nginx)."""
    client = Client(replica.url, f"127.0.0.1:{replica.port}")
    result = client.call("search_notes", {"query": "Imported note"})
    return len((result.get("structuredContent") or {}).get("result") or [])


def start_task(client, nginx, by_port, count, pace_ms):
    before = nginx.logged()
    handle = client.call("import_notes", {"count": count, "pace_ms": pace_ms})
    runner = served_by(nginx, by_port, before)
    check(handle.get("resultType") == "task" and handle.get("status") == "working"
          and isinstance(handle.get("taskId"), str) and runner is not None,
          f"import_notes through nginx answers with a working task's handle: {handle}")
    return handle.get("taskId", ""), runner


def read_on_both(client, nginx, by_port, runner, task_id):
    """tasks/get through nginx until each replica answered one, and the task completed on a
    poll the other replica answered (bounded). Returns that poll's task."""
    seen = set()
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        before = nginx.logged()
        task = client.get(task_id)
        served = served_by(nginx, by_port, before)
        seen.add(served.name if served else None)
        if served is not runner and task.get("status") == "completed":
            return task, seen
        time.sleep(0.1)
    return {}, seen


def main(notes, nginx_binary, redis_binary, workdir):
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    redis = Redis(redis_binary, os.path.join(workdir, "redis"))
    prefix = os.path.join(workdir, "nginx")
    os.makedirs(prefix, exist_ok=True)
    nginx = Nginx(nginx_binary, prefix, TEMPLATE)
    replicas = []
    try:
        redis.start()
        store = f"redis://127.0.0.1:{redis.port}/0"
        port = free_port()
        public = f"http://{PUBLIC_HOST}:{port}/mcp"
        for i in (1, 2):
            own = free_port()
            args = ["serve", "--http", f"127.0.0.1:{own}", "--public-url", public,
                    "--task-lease", str(LEASE_S), "--task-poll-ms", "200"]
            # One by flag, one by its environment variable.
            if i == 1:
                args += ["--task-store", store]
            replica = NotesServer(notes, args, env={"TOOLSMITH_TASK_STORE": store} if i == 2 else None,
                                  workdir=workdir, name=f"replica-{i}", local_port=own)
            replicas.append(replica)
            replica.start()
        by_port = {f"127.0.0.1:{r.port}": r for r in replicas}
        nginx.write_config({"NGINX_PORT": port, "REPLICA_1": replicas[0].port, "REPLICA_2": replicas[1].port})
        nginx.start(port)
        client = Client(f"http://127.0.0.1:{port}/mcp", f"{PUBLIC_HOST}:{port}")

        # 1. Run on one replica, read from the other.
        task_id, runner = start_task(client, nginx, by_port, 4, 150)
        done, seen = read_on_both(client, nginx, by_port, runner, task_id)
        check(len(seen) == 2, f"tasks/get answered by both replicas: {seen}")
        data = ((done.get("result") or {}).get("structuredContent")) or {}
        check(done.get("status") == "completed" and data.get("created") == 4
              and len(data.get("note_ids") or []) == 4,
              f"the result, read from the replica that did not run it: {done}")
        other = next((r for r in replicas if r is not runner), None)
        if runner and other:
            check(imported(runner) == 4 and imported(other) == 0,
                  f"the task ran on {runner.name} only: {imported(runner)} and {imported(other)} notes")

        # 2. Cancel on the other replica.
        task_id, runner = start_task(client, nginx, by_port, 100, 100)
        other = next((r for r in replicas if r is not runner), None)
        if runner and other:
            # Until the run has made a note (at once, mostly; bounded for a busy machine).
            deadline = time.monotonic() + 15
            while imported(runner) == 0 and time.monotonic() < deadline:
                time.sleep(0.1)
            direct = Client(other.url, f"127.0.0.1:{other.port}")
            ack = direct.cancel(task_id)
            check("result" in ack, f"tasks/cancel answered by {other.name}: {ack}")
            cancelled = direct.get(task_id)
            check(cancelled.get("status") == "cancelled", f"cancelled at once, as {other.name} says: {cancelled}")
            # The runner sees the cancel at its next renewal (every 200 ms; more on a busy
            # machine).
            time.sleep(1.5)
            before = imported(runner)
            time.sleep(1.0)
            after = imported(runner)
            check(0 < before < 100 and after == before,
                  f"{runner.name} stopped making notes after the cancel: {before} then {after}")
            seen_by_runner = Client(runner.url, f"127.0.0.1:{runner.port}").get(task_id)
            check(seen_by_runner.get("status") == "cancelled", f"{runner.name} says cancelled too: {seen_by_runner}")

        # 3. Kill the replica running a task.
        task_id, runner = start_task(client, nginx, by_port, 100, 100)
        other = next((r for r in replicas if r is not runner), None)
        if runner and other:
            time.sleep(0.3)
            runner.kill()
            killed = time.monotonic()
            direct = Client(other.url, f"127.0.0.1:{other.port}")
            first = direct.get(task_id)
            check(first.get("status") == "working", f"just after the kill, still working (its lease): {first}")
            failed = {}
            while time.monotonic() - killed < LEASE_S + 8:
                failed = direct.get(task_id)
                if failed.get("status") != "working":
                    break
                time.sleep(0.1)
            after = time.monotonic() - killed
            check(failed.get("status") == "failed" and failed.get("statusMessage") == STOPPED
                  and (failed.get("error") or {}).get("message") == STOPPED,
                  f"the killed replica's task failed once its lease ran out: {failed}")
            check(0.5 < after < LEASE_S + 2, f"failed {after:.1f} s after the kill (lease {LEASE_S} s)")
            through = client.get(task_id)
            check(through.get("status") == "failed", f"through nginx too: {through}")
            print(f"tasks across replicas: the killed replica's task failed {after:.1f} s after the kill")
    except StartError as err:
        check(False, f"did not start: {err}")
    except Exception as err:
        check(False, f"{type(err).__name__}: {err}")
        print(nginx.errors(), file=sys.stderr)
    finally:
        nginx.stop()
        stop_replicas([r for r in replicas if r.proc is not None and r.proc.poll() is None])
        redis.stop()
    return tally("tasks across replicas")


if __name__ == "__main__":
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    sys.exit(main(*sys.argv[1:]))
