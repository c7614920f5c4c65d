import os
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def root():
    return ROOT


@pytest.fixture(scope="session")
def sowzero_bin():
    return os.environ.get("SOWZERO_BIN", str(ROOT / "sowzero"))


@pytest.fixture(scope="session")
def dump_cases():
    p = os.environ.get("SOWZERO_DUMP", str(ROOT / "build/tests/export/dump_cases"))
    if not os.path.exists(p):
        pytest.skip("dump_cases not built (make python-test builds it)")
    return p
