"""FastMCP's proxy in front of one server: the comparison of the gateway benchmark
(`toolsmith-bench gateway`) and of TM Dev Lab's workload through gateways (`bench/tmdevlab
--fastmcp-python`).

    python fastmcp_proxy.py UPSTREAM_COMMAND [ARGS...]      a stdio upstream, served over stdio
    python fastmcp_proxy.py --http HOST:PORT UPSTREAM_URL   a Streamable HTTP upstream, served
                                                            over stateless Streamable HTTP
                                                            (JSON answers) at /mcp
"""
import sys

from fastmcp.server import create_proxy


def main():
    if sys.argv[1] == "--http":
        (host, port), url = sys.argv[2].rsplit(":", 1), sys.argv[3]
        # One server: its tools keep their names.
        proxy = create_proxy({"mcpServers": {"upstream": {"url": url, "transport": "http"}}})
        proxy.run(transport="http", host=host, port=int(port), path="/mcp", show_banner=False,
                  stateless_http=True, json_response=True, log_level="warning")
        return
    command, args = sys.argv[1], sys.argv[2:]
    proxy = create_proxy({"mcpServers": {"upstream": {"command": command, "args": args}}})
    proxy.run(show_banner=False)


if __name__ == "__main__":
    main()
