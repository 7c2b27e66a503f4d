"""examples/python, run as a user would, against the live server: each checks its own
outcome and exits non-zero when it is wrong."""

from __future__ import annotations

import subprocess
import sys

import pytest
from conftest import REPO, Server


@pytest.mark.parametrize("script", ["agent_loop.py", "reviewer_daemon.py"])
def test_example(server: Server, script: str) -> None:
    args = [
        sys.executable,
        str(REPO / "examples" / "python" / script),
        "--url",
        server.url,
        "--key",
        server.admin_key,
    ]
    if script == "reviewer_daemon.py":
        args += ["--demo", "--wait", "5"]
    done = subprocess.run(args, capture_output=True, text=True, timeout=120)
    print(done.stdout)
    assert done.returncode == 0, done.stdout + done.stderr
