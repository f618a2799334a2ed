"""A FastMCP (PyPI `fastmcp`) server that asks its client during a call, reports progress and
logs, as servers written in Python do: the upstream of the gateway's pass-through checks in
test_gateway.py. It speaks the revisions before 2026-07-28, so its question is an
`elicitation/create` request sent while the call runs.

    python fastmcp_asking.py        serves over stdio
"""

from dataclasses import dataclass

from fastmcp import Context, FastMCP

mcp = FastMCP("archive")
PURGED: list[int] = []


@dataclass
class Sure:
    sure: bool


@mcp.tool(
    title="Purge archive",
    annotations={"readOnlyHint": False, "destructiveHint": True, "idempotentHint": True, "openWorldHint": False},
)
async def purge(days: int, ctx: Context) -> str:
    """Purge the archived records older than `days` days, after asking the user."""
    answer = await ctx.elicit(f"Purge the records older than {days} days?", response_type=Sure)
    if answer.action != "accept" or not answer.data.sure:
        return f"kept ({answer.action})"
    PURGED.append(days)
    return f"purged {days}"


@mcp.tool(
    title="Count archive",
    annotations={"readOnlyHint": True, "idempotentHint": True, "openWorldHint": False},
)
async def count(steps: int, ctx: Context) -> int:
    """Count the archived records in `steps` steps, reporting progress and logging."""
    await ctx.info("counting")
    for step in range(1, steps + 1):
        await ctx.report_progress(step, steps, f"step {step}")
    await ctx.warning("counted")
    return steps


if __name__ == "__main__":
    mcp.run(show_banner=False, log_level="ERROR")
