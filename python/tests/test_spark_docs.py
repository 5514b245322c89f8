"""The Spark snippet of the README and of docs/python.md, run as written: a
Python of its own (its own SparkSession, as a reader's script has it), from
a directory that has the checkout's fixtures where the snippet names them,
with no virtual environment activated and no PYSPARK_PYTHON given."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

import htmlabs

from conftest import REPO, warcio_check

MARKER = "<!-- run by python/tests/test_spark_docs.py -->"


def snippet(document):
    """The ```python block right after the marker in `document`."""
    text = (REPO / document).read_text()
    assert text.count(MARKER) == 1, f"{document} has not one {MARKER}"
    after = text.split(MARKER, 1)[1]
    assert after.startswith("\n```python\n"), f"{document}: the marker is not right before a ```python block"
    return after.split("```python\n", 1)[1].split("```", 1)[0]


def environment():
    """This process's environment as a reader's shell has it: no virtual
    environment on PATH or named, no Python chosen for Spark; two cores."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYSPARK_PYTHON", "PYSPARK_DRIVER_PYTHON", "PYSPARK_SUBMIT_ARGS", "VIRTUAL_ENV",
                        "PYTHONPATH", "SPARK_HOME")}
    venv_bin = str(Path(sys.executable).parent)
    env["PATH"] = os.pathsep.join(d for d in env.get("PATH", "").split(os.pathsep) if d and d != venv_bin)
    env["PYSPARK_SUBMIT_ARGS"] = "--master local[2] pyspark-shell"
    return env


@pytest.mark.spark
@pytest.mark.parametrize("document", ["README.md", "docs/python.md"])
def test_the_spark_snippet_runs_as_written(document, tmp_path):
    code = snippet(document)
    (tmp_path / "fixtures").symlink_to(REPO / "fixtures")
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=environment(),
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-5000:]
    # No file failed: the table of errors is empty.
    assert "|error|" in done.stdout.replace(" ", "") and "shapes.warc.gz" not in done.stdout, done.stdout
    out = tmp_path / "absolute"
    assert os.listdir(out) == ["shapes.warc.gz"]
    alone = htmlabs.rewrite_warc(str(REPO / "fixtures/warc/shapes.warc.gz"), str(tmp_path / "alone.warc.gz"),
                                 lazy=True)
    assert alone.rewritten > 0
    assert warcio_check(out / "shapes.warc.gz") == warcio_check(tmp_path / "alone.warc.gz")
