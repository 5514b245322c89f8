"""What the tests share: the command line to compare with, the shared
corpus, and warcio's checks. On a user's machine a test whose tool or
corpus is missing is skipped, its reason in the summary (python/test runs
pytest with -rs); under CI=true it fails, and so does a run with any skip.

Markers: `spark` (a local[2] session, seconds to start) and `cluster` (a
standalone cluster on localhost, a minute): `python/test -m "not cluster"`
leaves the cluster out."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared"
IN_CI = os.environ.get("CI") == "true"


def missing(what):
    """Skips, or under CI fails, naming what is missing."""
    if IN_CI:
        pytest.fail(f"{what} is missing (CI installs it)")
    pytest.skip(f"{what} is missing")


def module(name):
    """A module the test needs: imported, or missing."""
    try:
        return __import__(name)
    except ImportError:
        missing(f"the Python module {name}")


def pytest_configure(config):
    config.addinivalue_line("markers", "spark: runs Spark in local[2] (seconds to start)")
    config.addinivalue_line("markers", "cluster: runs a standalone Spark cluster on localhost (a minute)")


def pytest_collection_modifyitems(items):
    """Each test that uses a Spark session is `spark`; the cluster's file, `cluster`."""
    for item in items:
        if item.path.name == "test_spark_cluster.py":
            item.add_marker("cluster")
        elif "spark" in getattr(item, "fixturenames", ()) or item.path.name == "test_spark.py":
            item.add_marker("spark")


def pytest_sessionfinish(session, exitstatus):
    """Under CI, a skip is a failure: a test that did not run proves nothing."""
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    skipped = len(reporter.stats.get("skipped", [])) if reporter else 0
    if IN_CI and skipped and session.exitstatus == 0:
        print(f"\n{skipped} tests skipped under CI=true: each one is a failure")
        session.exitstatus = 1


@pytest.fixture(scope="session")
def cli():
    """The htmlabs binary: $HTMLABS_BIN, else cargo's debug or release
    build (in $CARGO_TARGET_DIR when it is set, as cargo builds it)."""
    named = os.environ.get("HTMLABS_BIN")
    target = Path(os.environ.get("CARGO_TARGET_DIR") or REPO / "target")
    if not target.is_absolute():
        target = REPO / target
    candidates = [Path(named)] if named else [target / "debug/htmlabs", target / "release/htmlabs"]
    for path in candidates:
        if path.is_file():
            return str(path)
    missing("the htmlabs binary (cargo build)")


@pytest.fixture(scope="session")
def corpus():
    pages = SHARED / "corpus/pages"
    if not (pages / "urls.tsv").is_file():
        missing(f"{pages}/urls.tsv")
    return SHARED / "corpus"


def run_cli(cli, args, stdin=b""):
    """Runs the binary: (exit status, stdout bytes, stderr lines)."""
    done = subprocess.run([cli, *args], input=stdin, capture_output=True)
    return done.returncode, done.stdout, done.stderr.decode().splitlines()


def warcio_check(path):
    """`warcio check -v`: every digest of every record verifies. Returns
    warcio's records read back (type, target URI)."""
    check = subprocess.run([sys.executable, "-m", "warcio.cli", "check", "-v", str(path)],
                           capture_output=True, text=True)
    assert check.returncode == 0 and "failed" not in check.stdout, check.stdout[-2000:] + check.stderr[-2000:]
    from warcio.archiveiterator import ArchiveIterator

    with open(path, "rb") as f:
        return [(r.rec_type, r.rec_headers.get_header("WARC-Target-URI")) for r in ArchiveIterator(f)]


@pytest.fixture(scope="session")
def spark():
    """One SparkSession for every Spark test (its start takes seconds):
    local[2], its Python workers this interpreter."""
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        missing("pyspark")
    import shutil

    if not shutil.which("java") and not os.environ.get("JAVA_HOME"):
        missing("java (17)")
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    session = (
        SparkSession.builder.master("local[2]")
        .appName("htmlabs-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()
