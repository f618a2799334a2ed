"""nginx in a folder of its own, for the tests that put it in front of notes replicas.

Started from a config template (interop/nginx/*.conf) with its @PLACEHOLDERS@ filled in, as
    nginx -p PREFIX -c PREFIX/nginx.conf -e PREFIX/logs/error.log
so that nothing of the system's nginx (its /etc/nginx, its /var/lib/nginx temp folders, its
pid file, port 80) is used. Every wait is bounded: start() waits for the port (20 s), stop()
sends SIGQUIT (graceful), then SIGKILL after 10 s. The master's pid is in
PREFIX/nginx-master.pid while it runs, for interop/run to clean up after a kill.
"""

import os
import re
import signal
import socket
import subprocess
import time


# An access log line of interop/nginx/*.conf's formats: the request's method, its status, and
# $upstream_addr ("127.0.0.1:A, 127.0.0.1:B" after a failed try).
LOG_LINE = re.compile(r'"(\w+) [^"]*" (\d{3}) .*?upstream=(.*?) upstream_status=')


def tried(line):
    """(method, status, replicas) of an access log line: every $upstream_addr tried, in
    order (nginx's "-" when none was); (None, None, None) for a line that does not read."""
    found = LOG_LINE.search(line or "")
    if not found:
        return None, None, None
    return found[1], int(found[2]), [addr.strip() for addr in found[3].split(",")]


def served(line):
    """(method, status, replica) of an access log line: the replica is the $upstream_addr
    that answered, the last one tried; (None, None, None) for a line that does not read."""
    method, status, replicas = tried(line)
    return method, status, replicas and replicas[-1]


class Nginx:
    """nginx run from `template` in the folder `prefix` (its config, logs, pid and temp folders)."""

    def __init__(self, binary, prefix, template):
        self.binary = binary
        self.prefix = prefix
        self.template = template
        self.proc = None
        self.conf = os.path.join(prefix, "nginx.conf")
        self.error_log = os.path.join(prefix, "logs", "error.log")
        self.access_log = os.path.join(prefix, "logs", "access.log")

    def write_config(self, values, files=None):
        """Writes the template with each @NAME@ replaced by values[NAME], and `files` (name ->
        text) next to it, for the config to include; a placeholder left unfilled is an error."""
        for sub in ("logs", "tmp"):
            os.makedirs(os.path.join(self.prefix, sub), exist_ok=True)
        # Run as root (CI), nginx's worker drops to an unprivileged user: it must reach the
        # temp folders, which nginx creates and hands to it, through the prefix.
        os.chmod(self.prefix, 0o755)
        os.chmod(os.path.join(self.prefix, "tmp"), 0o755)
        with open(self.template) as f:
            text = f.read()
        for name, value in values.items():
            text = text.replace(f"@{name}@", str(value))
        left = re.findall(r"@[A-Z0-9_]+@", text)
        if left:
            raise RuntimeError(f"unfilled placeholders in {self.template}: {left}")
        for name, content in (files or {}).items():
            with open(os.path.join(self.prefix, name), "w") as f:
                f.write(content)
        with open(self.conf, "w") as f:
            f.write(text)

    def command(self, *extra):
        return [self.binary, "-p", self.prefix + "/", "-c", self.conf, "-e", self.error_log, *extra]

    def start(self, port, timeout=20.0):
        test = subprocess.run(self.command("-t", "-q"), capture_output=True, text=True, timeout=30)
        if test.returncode != 0:
            raise RuntimeError(f"nginx -t refused the config:\n{test.stderr}")
        log = open(os.path.join(self.prefix, "logs", "stderr.log"), "wb")
        self.proc = subprocess.Popen(self.command(), stdin=subprocess.DEVNULL, stdout=log, stderr=log)
        log.close()
        with open(os.path.join(self.prefix, "nginx-master.pid"), "w") as f:
            f.write(f"{self.proc.pid}\n")
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"nginx exited with {self.proc.returncode}:\n{self.errors()}")
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError(f"nginx did not listen on 127.0.0.1:{port} within {timeout:.0f} s:\n{self.errors()}")

    def logged(self):
        """How many requests the access log holds so far."""
        try:
            with open(self.access_log, errors="replace") as f:
                return sum(1 for _ in f)
        except FileNotFoundError:
            return 0

    def lines_after(self, before, count=1, timeout=5.0):
        """The `count` access log lines after its first `before`, waited for (bounded): nginx
        writes a request's line after it sent the answer, so a client that got its answer may
        read the log before the line is there, and would read the previous request's."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                with open(self.access_log, errors="replace") as f:
                    lines = f.read().splitlines()
            except FileNotFoundError:
                lines = []
            if len(lines) >= before + count or time.monotonic() > deadline:
                return lines[before:before + count]
            time.sleep(0.02)

    def errors(self):
        try:
            with open(self.error_log, errors="replace") as f:
                return f.read()[-2000:]
        except FileNotFoundError:
            return ""

    def stop(self):
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGQUIT)  # graceful: finish the requests in flight
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()  # the master; its worker exits when the master is gone
                self.proc.wait(timeout=10)
        try:
            os.unlink(os.path.join(self.prefix, "nginx-master.pid"))
        except FileNotFoundError:
            pass
