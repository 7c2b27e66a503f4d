"""Runs last (pytest takes files in name order): fails naming every operation of
openapi/openapi.json that no test sent a request to."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import EXERCISED, spec_operations


def test_every_operation_was_exercised(request: pytest.FixtureRequest) -> None:
    files = set(Path(__file__).parent.glob("test_*.py"))
    ran = {Path(str(item.path)) for item in request.session.items}
    option = request.config.option
    if not files <= ran or option.keyword or option.markexpr or getattr(option, "lf", False):
        pytest.skip("only a part of the suite ran")
    missing = sorted(spec_operations() - EXERCISED)
    assert not missing, "operations no test exercised:\n" + "\n".join(
        f"  {method} {path}" for method, path in missing
    )
