"""`toolsmith audit` against servers no one here wrote, and the notes example.

Audits, with the `toolsmith` binary (rmcp's client; no tool is ever called):
  * @modelcontextprotocol/server-everything, -filesystem and -memory (npm, pinned in
    interop/node/package-lock.json), over stdio;
  * fastmcp_server.py, a small FastMCP (PyPI `fastmcp`) server with a deliberately wrong
    `delete_*` tool, over stdio;
  * the notes example over stdio, and over Streamable HTTP (`notes serve --http`).

Each server's findings (severity, code, tool, path) are compared with the committed
interop/audit/expected.txt, so that a change in the audit's judgement shows up in review;
the exit status must be 1 exactly when there is an error finding. Each server's `--sarif`
log is validated against the SARIF 2.1.0 JSON schema (sarif-schema-2.1.0.json, vendored
from the npm package @microsoft/jest-sarif 1.0.0-beta.0, lib/schemas/sarif-2.1.0-rtm.5.json),
and a `--json` report, given back as `--baseline`, accepts every finding.

Usage: python test_audit.py TOOLSMITH NOTES NODE NODE_MODULES [--write]
  --write rewrites expected.txt from this run (review the diff).
"""

import difflib
import json
import os
import subprocess
import sys
import tempfile

import jsonschema

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
from notes_http import NotesServer  # noqa: E402

EXPECTED = os.path.join(HERE, "expected.txt")
SARIF_SCHEMA = os.path.join(HERE, "sarif-schema-2.1.0.json")


def audit(toolsmith, target, *flags, env=None):
    """Runs `toolsmith audit FLAGS TARGET`; returns (status, stdout, stderr)."""
    full_env = dict(os.environ, TOOLSMITH_LOG="off", **(env or {}))
    proc = subprocess.run([toolsmith, "audit", *flags, *target], capture_output=True,
                          text=True, timeout=180, env=full_env, stdin=subprocess.DEVNULL)
    return proc.returncode, proc.stdout, proc.stderr


def lines(name, report):
    out = []
    for f in report["findings"]:
        where = f" {f['path']}" if f["path"] else ""
        out.append(f"{name}: {f['severity']} {f['code']} {f['tool'] or '(server)'}{where}")
    summary = report["summary"]
    out.append(f"{name}: {len(report['tools'])} tools, {summary['errors']} errors, "
               f"{summary['warnings']} warnings, {summary['notes']} notes")
    return out


def main(toolsmith, notes, node, modules, write):
    sarif_schema = json.load(open(SARIF_SCHEMA, encoding="utf-8"))
    failures = []
    found = []
    scratch = tempfile.mkdtemp(prefix="toolsmith-audit-")
    reference = lambda name: os.path.join(modules, "@modelcontextprotocol", f"server-{name}", "dist", "index.js")
    python = sys.executable
    stdio = [
        ("server-everything", ["--", node, reference("everything")], {}),
        ("server-filesystem", ["--", node, reference("filesystem"), scratch], {}),
        ("server-memory", ["--", node, reference("memory")],
         {"MEMORY_FILE_PATH": os.path.join(scratch, "memory.jsonl")}),
        ("fastmcp", ["--", python, os.path.join(HERE, "fastmcp_server.py")], {}),
        ("notes", ["--", notes], {}),
    ]
    server = NotesServer(notes, ["serve", "--http", "127.0.0.1:0"])
    server.start()
    try:
        targets = stdio + [("notes-http", [server.url], {})]
        for name, target, env in targets:
            status, out, err = audit(toolsmith, target, "--json", env=env)
            try:
                report = json.loads(out)
            except ValueError:
                failures.append(f"{name}: no JSON report (exit {status}): {err[-2000:]}")
                continue
            found += lines(name, report)
            errors = report["summary"]["errors"]
            if status != (1 if errors else 0):
                failures.append(f"{name}: exit status {status} with {errors} errors")
            status, out, err = audit(toolsmith, target, "--sarif", env=env)
            try:
                jsonschema.Draft4Validator(sarif_schema).validate(json.loads(out))
            except (ValueError, jsonschema.ValidationError) as e:
                failures.append(f"{name}: the SARIF log is not valid SARIF 2.1.0: {str(e)[:2000]}")
            baseline = os.path.join(scratch, f"{name}.json")
            with open(baseline, "w", encoding="utf-8") as f:
                json.dump(report, f)
            status, out, err = audit(toolsmith, target, "--fail-on", "note", "--baseline", baseline, env=env)
            if status != 0:
                failures.append(f"{name}: with its own report as baseline, exit status {status}: {err[-500:]}")
    finally:
        server.stop()
    text = "\n".join(found) + "\n"
    if write:
        open(EXPECTED, "w", encoding="utf-8").write(text)
        print(f"wrote {EXPECTED}")
    else:
        expected = open(EXPECTED, encoding="utf-8").read()
        if text != expected:
            diff = difflib.unified_diff(expected.splitlines(), text.splitlines(),
                                        "expected.txt", "this run", lineterm="")
            failures.append("the findings differ from interop/audit/expected.txt "
                            "(review, then rerun with --write):\n" + "\n".join(diff))
    print(text, end="")
    for failure in failures:
        print("FAILED: " + failure, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--write"]
    if len(args) != 4:
        sys.exit(__doc__)
    sys.exit(main(*args, write="--write" in sys.argv))
