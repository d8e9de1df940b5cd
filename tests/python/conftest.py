"""pytest configuration for the generated-package tests (see test_tables.py)."""

from __future__ import annotations

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "shipped: expectations about the shipped manifest/ (deselected for synthetic manifests)",
    )
