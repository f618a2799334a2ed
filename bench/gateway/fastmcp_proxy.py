"""FastMCP's proxy in front of one stdio server, served over stdio: the comparison of the
gateway benchmark (bench/gateway/run.sh).

    python fastmcp_proxy.py UPSTREAM_COMMAND [ARGS...]
"""
import sys

from fastmcp.server import create_proxy


def main():
    command, args = sys.argv[1], sys.argv[2:]
    # One server: its tools keep their names.
    proxy = create_proxy({"mcpServers": {"upstream": {"command": command, "args": args}}})
    proxy.run(show_banner=False)


if __name__ == "__main__":
    main()
