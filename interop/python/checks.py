"""The pass/fail counter every interop script reports with ("N passed, M failed")."""

import sys

checks = {"passed": 0, "failed": 0}


def check(condition, what):
    """Counts one check; a failed one is named on stderr."""
    if condition:
        checks["passed"] += 1
    else:
        checks["failed"] += 1
        print(f"FAILED: {what}", file=sys.stderr)
