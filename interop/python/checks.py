"""The pass/fail counter every interop script reports with ("N passed, M failed")."""

import asyncio
import sys

checks = {"passed": 0, "failed": 0}


def check(condition, what):
    """Counts one check; a failed one is named on stderr."""
    if condition:
        checks["passed"] += 1
    else:
        checks["failed"] += 1
        print(f"FAILED: {what}", file=sys.stderr)


def failed_with(what, err):
    """Counts an exception (a transport that fails or hangs) as a failed check, not a traceback."""
    check(False, f"{what}: {type(err).__name__}: {err!r}")


async def within(what, run, timeout):
    """Awaits `run` for at most `timeout` seconds; an exception or the timeout is a failed check."""
    try:
        await asyncio.wait_for(run, timeout=timeout)
    except Exception as err:
        failed_with(what, err)


def tally(what):
    """Prints "WHAT: N passed, M failed" and returns the exit status (0 when nothing failed)."""
    print(f"{what}: {checks['passed']} passed, {checks['failed']} failed")
    return 0 if checks["failed"] == 0 else 1


def stop_replicas(replicas):
    """Stops each server (SIGTERM), checking it exits 0; one that never started is killed."""
    for replica in replicas:
        if replica.url is None:  # never started: already reported
            replica.kill()
            continue
        status = replica.stop()
        check(status == 0, f"{replica.name} SIGTERM: exit status {status}\n{replica.stderr_tail()}")
