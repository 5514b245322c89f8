"""The Spark command line by each of its names: `python -m htmlabs.spark`
and the `htmlabs-spark` script the wheel installs. Their help needs no
Spark (pyspark is imported when a session starts)."""

import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from conftest import missing


def script():
    """`htmlabs-spark` where pip put it: beside this Python, in its
    environment's scripts."""
    for directory in (Path(sysconfig.get_path("scripts")), Path(sys.executable).parent):
        if (directory / "htmlabs-spark").is_file():
            return str(directory / "htmlabs-spark")
    missing("the htmlabs-spark script (pip install the wheel)")


@pytest.mark.parametrize("links", [[], ["links"]], ids=["rewrite", "links"])
@pytest.mark.parametrize("how", ["module", "script"])
def test_help_lists_the_options(how, links, tmp_path):
    command = [sys.executable, "-m", "htmlabs.spark"] if how == "module" else [script()]
    # Elsewhere than the checkout: the installed package, not its sources.
    done = subprocess.run([*command, *links, "--help"], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""  # nor a warning of runpy's
    for flag in ["--output", "--inputs-from", "--max-memory", "--max-lookahead", "--lazy"]:
        assert flag in done.stdout, (flag, done.stdout)
    # Only the rewriting command writes archives (and a report).
    assert ("--gzip-level" in done.stdout) == (links == [])
    assert ("--report" in done.stdout) == (links == [])


def test_no_input_is_an_error_before_spark_starts(tmp_path):
    done = subprocess.run([script(), "--output", str(tmp_path / "out")], cwd=tmp_path, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr == "htmlabs.spark: error: no input\n"
