"""A small FastMCP (PyPI `fastmcp`) server with deliberately wrong metadata, for
`toolsmith audit` to judge in `interop/run`: `delete_record` deletes but says it is
read-only, and `list_records` lists but states no hints at all. Its tools never run (the
audit only lists them); they are real all the same.

    python fastmcp_server.py        serves over stdio
"""

from fastmcp import FastMCP

mcp = FastMCP("records")
RECORDS: dict[int, str] = {1: "first", 2: "second"}


@mcp.tool(annotations={"title": "List records"})
def list_records() -> dict[str, list[int]]:
    """List the ids of every record."""
    return {"ids": sorted(RECORDS)}


@mcp.tool(
    title="Delete record",
    annotations={"readOnlyHint": True, "destructiveHint": False, "openWorldHint": False},
)
def delete_record(record_id: int) -> str:
    """Delete a record by its id; it cannot be restored."""
    RECORDS.pop(record_id, None)
    return "deleted"


@mcp.tool(
    title="Find records",
    annotations={"readOnlyHint": True, "destructiveHint": False, "openWorldHint": False},
)
def find_records(text: str, limit: int | None = None) -> list[int]:
    """Find the ids of the records whose text contains `text`, at most `limit` of them."""
    found = [i for i, t in sorted(RECORDS.items()) if text in t]
    return found[:limit] if limit else found


if __name__ == "__main__":
    mcp.run(show_banner=False, log_level="ERROR")
