"""The package from this checkout, and the library from SYMCOLL_LIBRARY (ctest sets it to the
build's libsymcoll.so; an installed wheel finds its own)."""

import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))


@pytest.fixture(scope="session")
def header():
    """The public C headers the package binds (symcoll.h includes symcoll_halo.h)."""
    return "".join(
        (ROOT / "include" / name).read_text() for name in ("symcoll.h", "symcoll_halo.h")
    )


def gpu_present():
    import ctypes

    for name in ("libcuda.so.1", "libcuda.so"):
        try:
            cuda = ctypes.CDLL(name)
        except OSError:
            continue
        count = ctypes.c_int(0)
        return (
            cuda.cuInit(0) == 0
            and cuda.cuDeviceGetCount(ctypes.byref(count)) == 0
            and count.value > 0
        )
    return False


def pytest_sessionfinish(session, exitstatus):
    """Under ctest (SYMCOLL_PYTEST_SKIP_CODE=77), a run in which every test skipped (or a module
    skipped before any was collected: pytest's exit 5) exits 77, so that ctest reports it
    skipped, never passed."""
    import os

    code = os.environ.get("SYMCOLL_PYTEST_SKIP_CODE")
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if code and exitstatus in (0, 5) and reporter is not None:
        ran = sum(len(reporter.stats.get(k, [])) for k in ("passed", "failed", "error"))
        if ran == 0:
            session.exitstatus = int(code)
