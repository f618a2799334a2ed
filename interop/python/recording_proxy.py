"""A recording HTTP proxy in front of one upstream MCP server: it forwards every request
unchanged (the Host header too, so the upstream's public URL is the proxy's) to
127.0.0.1:TARGET and streams the answer back as it comes (an SSE stream event by event),
and it records what it received: each request's method, path, JSON-RPC method (of a JSON
body) and `Authorization` header. The identity tests (issue #56) read the record to check
who each upstream saw: each user's own subject, never another's, never a client's token.

    proxy = RecordingProxy(target_port)       # listens on 127.0.0.1:proxy.port from now on
    mark = len(proxy.seen())
    ...                                       # calls through the gateway
    for hit in proxy.seen()[mark:]: hit.authorization, hit.claims(), hit.rpc
    proxy.stop()

Python's standard library only; every upstream read is bounded (120 s per read).
"""

import base64
import http.client
import json
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

# Hop-by-hop headers (RFC 9110 section 7.6.1): not forwarded either way.
HOP = {"connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade"}


@dataclass
class Hit:
    method: str
    path: str
    rpc: str | None  # the JSON-RPC method of a JSON body ("tools/call"), else None
    authorization: str | None
    status: int | None = None

    def bearer(self):
        """The bearer token sent, or None."""
        scheme, _, token = (self.authorization or "").partition(" ")
        return token if scheme.lower() == "bearer" and token else None

    def claims(self):
        """The bearer token's claims, read without checking its signature (the upstream
        checked it); {} for no token or one that is not a JWT."""
        token = self.bearer()
        try:
            payload = token.split(".")[1]
            return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
        except (AttributeError, IndexError, ValueError):
            return {}


def _rpc_method(body):
    try:
        message = json.loads(body)
    except ValueError:
        return None
    if isinstance(message, list):  # (a batch: its first method)
        message = message[0] if message else {}
    return message.get("method") if isinstance(message, dict) else None


class RecordingProxy:
    def __init__(self, target_port, port=0):
        self.target_port = target_port
        self._hits = []
        self._lock = threading.Lock()
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self):  # noqa: N802 (http.server's names)
                self.forward()

            do_POST = do_DELETE = do_PUT = do_OPTIONS = do_HEAD = do_GET  # noqa: N815

            def forward(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else None
                hit = Hit(self.command, self.path, _rpc_method(body) if body else None,
                          self.headers.get("Authorization"))
                proxy._record(hit)
                headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP}
                upstream = http.client.HTTPConnection("127.0.0.1", proxy.target_port, timeout=120)
                try:
                    upstream.request(self.command, self.path, body=body, headers=headers)
                    answer = upstream.getresponse()
                except OSError as err:
                    hit.status = 502
                    message = f"the upstream on port {proxy.target_port} did not answer: {err}".encode()
                    self.send_response(502)
                    self.send_header("Content-Type", "text/plain")
                    self.send_header("Content-Length", str(len(message)))
                    self.end_headers()
                    self.wfile.write(message)
                    upstream.close()
                    return
                hit.status = answer.status
                try:
                    self.relay(answer)
                except OSError:  # the client went away (a stream it closed): so does the upstream's
                    self.close_connection = True
                finally:
                    upstream.close()

            def relay(self, answer):
                self.send_response_only(answer.status, answer.reason)
                sized = answer.getheader("Content-Length") is not None
                for name, value in answer.getheaders():
                    if name.lower() not in HOP:
                        self.send_header(name, value)
                bodiless = self.command == "HEAD" or answer.status in (204, 304)
                if not sized and not bodiless:
                    self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                self.wfile.flush()
                if bodiless:
                    return
                while True:
                    chunk = answer.read1(65536)
                    if not chunk:
                        break
                    if sized:
                        self.wfile.write(chunk)
                    else:
                        self.wfile.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
                    self.wfile.flush()
                if not sized:
                    self.wfile.write(b"0\r\n\r\n")
                    self.wfile.flush()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.origin = f"http://127.0.0.1:{self.port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def _record(self, hit):
        with self._lock:
            self._hits.append(hit)

    def seen(self):
        """Every request received so far, in order."""
        with self._lock:
            return list(self._hits)

    def stop(self):
        self.server.shutdown()
        self.server.server_close()
