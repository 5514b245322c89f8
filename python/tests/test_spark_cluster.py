"""htmlabs.spark as users run it: submitted with `spark-submit` to a Spark
standalone cluster on localhost (a master and two workers started from the
pyspark package, each executor a JVM of its own), the executors running
the packed virtual environment shipped with `--archives`, a task killed
mid-file and retried; and `python -m htmlabs.spark` from a virtual
environment that is not activated.

The commands are docs/python.md's (its Spark section), word for word but
for the paths."""

import glob
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest

import htmlabs

from conftest import REPO, missing, warcio_check

FIXTURES = REPO / "fixtures/warc"
# Spark's own start (JVMs, the executors, the packed environment unpacked)
# takes tens of seconds on a shared machine: the bounds are far above it.
START = 120
JOB = 300


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _pyspark_home():
    try:
        import pyspark
    except ImportError:
        missing("pyspark")
    return Path(pyspark.__file__).parent


def _environment(**extra):
    """This process's environment as a user's shell has it: no virtual
    environment on PATH or named, no Python chosen for Spark."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYSPARK_PYTHON", "PYSPARK_DRIVER_PYTHON", "PYSPARK_SUBMIT_ARGS", "VIRTUAL_ENV",
                        "PYTHONPATH", "SPARK_HOME")}
    venv_bin = str(Path(sys.executable).parent)
    env["PATH"] = os.pathsep.join(d for d in env.get("PATH", "").split(os.pathsep) if d and d != venv_bin)
    env.update(extra)
    return env


def _processes_under(directory):
    """The processes whose working directory lies under `directory`: the
    cluster's JVMs, its executors and their Python workers all do."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            cwd = os.readlink(f"/proc/{pid}/cwd")
        except OSError:
            continue
        if cwd == str(directory) or cwd.startswith(str(directory) + "/"):
            found.append(int(pid))
    return found


def _cmdline(pid):
    with open(f"/proc/{pid}/cmdline", "rb") as f:
        return [a.decode() for a in f.read().split(b"\0") if a]


def _parent(pid):
    with open(f"/proc/{pid}/stat") as f:
        return int(f.read().rsplit(")", 1)[1].split()[1])


def _ancestors(pid):
    out = []
    while pid > 1:
        pid = _parent(pid)
        out.append(pid)
    return out


def _tail(path, n=3000):
    try:
        return Path(path).read_text(errors="replace")[-n:]
    except OSError:
        return ""


@pytest.fixture(scope="module")
def wheel():
    """The wheel python/test built (HTMLABS_WHEEL)."""
    named = os.environ.get("HTMLABS_WHEEL")
    found = [named] if named else sorted(glob.glob(str(REPO / "target/python-wheels/htmlabs-*.whl")))
    if not found or not Path(found[0]).is_file():
        missing("the htmlabs wheel (python/test builds it)")
    return found[0]


@pytest.fixture(scope="module")
def packed(wheel, tmp_path_factory):
    """docs/python.md's packed environment: a virtual environment with the
    wheel installed, packed by venv-pack. (env, env.tar.gz)"""
    venv_pack = Path(sys.executable).parent / "venv-pack"
    if not venv_pack.is_file():
        missing("venv-pack (pip install venv-pack)")
    work = tmp_path_factory.mktemp("packed")
    env = work / "env"
    subprocess.run([sys.executable, "-m", "venv", env], check=True)
    subprocess.run([env / "bin/pip", "install", wheel], check=True, capture_output=True)
    subprocess.run([venv_pack, "-p", env, "-o", work / "env.tar.gz"], check=True, capture_output=True)
    return env, work / "env.tar.gz"


class Cluster:
    """A Spark standalone cluster on localhost: a master and two workers
    of one core each, started from the pyspark package, on free ports, each
    logging into `work`."""

    def __init__(self, work):
        self.work = work
        self.home = _pyspark_home()
        self.env = _environment(SPARK_HOME=str(self.home), SPARK_LOCAL_IP="127.0.0.1",
                                SPARK_LOCAL_DIRS=str(work / "local"))
        self.processes = []
        self.port, self.ui = _free_port(), _free_port()
        self.url = f"spark://127.0.0.1:{self.port}"

    def _start(self, name, *args):
        log = open(self.work / f"{name}.log", "wb")
        process = subprocess.Popen([self.home / "bin/spark-class", *args], cwd=self.work, env=self.env,
                                   stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                   start_new_session=True)
        log.close()
        self.processes.append((name, process))

    def start(self):
        self._start("master", "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
                    "--port", str(self.port), "--webui-port", str(self.ui))
        for i in (1, 2):
            (self.work / f"worker{i}").mkdir()
            self._start(f"worker{i}", "org.apache.spark.deploy.worker.Worker", "--host", "127.0.0.1",
                        "--webui-port", str(_free_port()), "--cores", "1", "--memory", "1g",
                        "--work-dir", str(self.work / f"worker{i}"), self.url)
        deadline = time.monotonic() + START
        while time.monotonic() < deadline:
            for name, process in self.processes:
                if process.poll() is not None:
                    raise AssertionError(f"the {name} exited ({process.returncode}):\n"
                                         + _tail(self.work / f"{name}.log"))
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.ui}/json/", timeout=5) as r:
                    if json.load(r).get("aliveworkers") == 2:
                        return
            except OSError:
                pass
            time.sleep(1)
        raise AssertionError("the cluster's two workers did not register:\n" + _tail(self.work / "master.log"))

    def stop(self):
        """Stops the master and the workers, and then finds nothing left
        running under the cluster's directory (executors, Python workers,
        drivers): what was left is killed, and named in the error."""
        for _, process in self.processes:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for _, process in self.processes:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        # Executors exit when their worker does, Python workers when their
        # executor does: a moment after.
        deadline = time.monotonic() + 30
        while (left := _processes_under(self.work)) and time.monotonic() < deadline:
            time.sleep(0.5)
        stray = [(pid, " ".join(_cmdline(pid))[:200]) for pid in left]
        for pid in left:
            os.kill(pid, signal.SIGKILL)
        assert not stray, f"left running after the cluster stopped: {stray}"


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    home = _pyspark_home()
    if not (home / "bin/spark-class").is_file():
        missing(f"{home}/bin/spark-class")
    cluster = Cluster(tmp_path_factory.mktemp("cluster"))
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()


def submit(cluster, env, archive, args, cwd):
    """docs/python.md's spark-submit to a standalone cluster, the job
    htmlabs.spark's command line from the packed environment: the driver's
    process (a session of its own) and its log."""
    app = subprocess.run([env / "bin/python", "-c", "import htmlabs.spark; print(htmlabs.spark.__file__)"],
                         capture_output=True, text=True, check=True).stdout.strip()
    command = [
        cluster.home / "bin/spark-submit", "--master", cluster.url,
        "--archives", f"{archive}#env",
        "--conf", f"spark.pyspark.driver.python={env}/bin/python",
        "--conf", "spark.pyspark.python=./env/bin/python",
        app, *args,
    ]
    log = cwd / "driver.log"
    with open(log, "wb") as out:
        process = subprocess.Popen(command, cwd=cwd, env=cluster.env, stdin=subprocess.DEVNULL, stdout=out,
                                   stderr=subprocess.STDOUT, start_new_session=True)
    return process, log


def finish(process, log, timeout=JOB):
    """The job's exit status and log; killed (and the test failed) past
    `timeout`."""
    try:
        status = process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        raise AssertionError("the job did not finish:\n" + _tail(log)) from None
    return status, log.read_text(errors="replace")


def _rows(report):
    rows = []
    for part in sorted(Path(report).glob("part-*")):
        rows += [json.loads(line) for line in part.read_text().splitlines() if line]
    return {row["path"]: row for row in rows}


def check_outputs(inputs, sources, out, rows):
    """Exactly one output per input, each whole: every record readable and
    every digest verified by warcio, the conversion records there, and the
    records those of the same input rewritten here, alone, in order; each
    row its file's figures."""
    assert sorted(os.listdir(out)) == sorted(os.path.basename(p) for p in inputs)
    assert sorted(rows) == sorted(inputs)
    for path in inputs:
        row = rows[path]
        assert row.get("error") is None, row
        assert row["output"] == str(out / os.path.basename(path))
        alone_path = out.parent / "alone.warc.gz"
        alone = htmlabs.rewrite_warc(sources[path], alone_path)
        assert (row["records"], row["html_rewritten"], row["urls_rewritten"], row.get("warnings") or []) == (
            alone.records, alone.rewritten, alone.urls, alone.warnings)
        records = warcio_check(row["output"])
        assert records == warcio_check(alone_path)
        assert sum(1 for t, _ in records if t == "conversion") == row["html_rewritten"] > 0


class Feeder(threading.Thread):
    """Gives `data` to whoever reads the named pipe `fifo`: half of it to
    the first reader, who is then killed by the test (`half` is set then,
    `killed` waited for), and all of it to the next. (Were the next given
    anything else, its output would not be the file's.)"""

    def __init__(self, fifo, data):
        super().__init__(daemon=True)
        self.fifo, self.data = fifo, data
        self.half, self.killed, self.done = threading.Event(), threading.Event(), threading.Event()
        self.error = None

    def _open(self):
        deadline = time.monotonic() + JOB
        while time.monotonic() < deadline:
            try:  # fails (ENXIO) until a reader has it open
                fd = os.open(self.fifo, os.O_WRONLY | os.O_NONBLOCK)
            except OSError:
                time.sleep(0.1)
                continue
            os.set_blocking(fd, True)
            return fd
        raise TimeoutError(f"no reader opened {self.fifo}")

    def run(self):
        try:
            fd = self._open()
            os.write(fd, self.data[: len(self.data) // 2])
            self.half.set()
            self.killed.wait(JOB)
            # Closed at once, with its reader gone: the old pipe goes with
            # what it held, and the retry opens the new one the test put at
            # the path before the kill.
            os.close(fd)
            fd = self._open()
            view = memoryview(self.data)
            while view:
                view = view[os.write(fd, view):]
            os.close(fd)
            self.done.set()
        except Exception as e:
            self.error = e
            self.half.set()


def _reads(pid, fifo):
    """Whether process `pid` has `fifo` open."""
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return False
    for fd in fds:
        try:
            # The old pipe, once a new one is put at its path, is named
            # with " (deleted)".
            if os.readlink(f"/proc/{pid}/fd/{fd}") in (str(fifo), f"{fifo} (deleted)"):
                return True
        except OSError:
            pass
    return False


def _reader_of(fifo):
    for pid in os.listdir("/proc"):
        if pid.isdigit() and int(pid) != os.getpid() and _reads(pid, fifo):
            return int(pid)
    raise AssertionError(f"no process reads {fifo}")


def test_spark_submit_to_a_standalone_cluster_with_a_packed_environment(cluster, packed, corpus, tmp_path):
    env, archive = packed
    corpus_warc = corpus / "warc/corpus-wget.warc.gz"
    inputs_dir = tmp_path / "in"
    inputs_dir.mkdir()
    sources = {}
    for name in ("shapes.warc.gz", "shapes-sha256.warc.gz", "shapes-1.0.warc"):
        sources[str(FIXTURES / name)] = FIXTURES / name
    sources[str(corpus_warc)] = corpus_warc
    twice = inputs_dir / "corpus-twice.warc.gz"  # gzip members concatenate into one archive
    twice.write_bytes(corpus_warc.read_bytes() * 2)
    sources[str(twice)] = twice
    # One input is a named pipe: its task reads half of it, and its Python
    # worker is killed there; the retry is given all of it.
    fifo = inputs_dir / "killed.warc.gz"
    os.mkfifo(fifo)
    sources[str(fifo)] = corpus_warc
    inputs = list(sources)
    feeder = Feeder(fifo, corpus_warc.read_bytes())
    feeder.start()

    out, report = tmp_path / "out", tmp_path / "report"
    job = cluster.work / "job"  # under the cluster's directory: the driver is looked for at the end too
    job.mkdir(exist_ok=True)
    driver, log = submit(cluster, env, archive, [*inputs, "--output", str(out), "--report", str(report)], job)
    try:
        assert feeder.half.wait(JOB) and feeder.error is None, feeder.error
        worker = _reader_of(fifo)
        # A Python worker of an executor of its own (a JVM under a worker's
        # directory), running the packed environment's interpreter...
        assert _cmdline(worker)[:3] == ["./env/bin/python", "-m", "pyspark.daemon"], _cmdline(worker)
        executor = next(p for p in _ancestors(worker) if "CoarseGrainedExecutorBackend" in " ".join(_cmdline(p)))
        assert os.readlink(f"/proc/{executor}/cwd").startswith(str(cluster.work / "worker"))
        assert os.path.isfile(os.path.join(os.readlink(f"/proc/{worker}/cwd"), "env/bin/activate"))
        # ... mid-file: its output open, unnamed, in the output directory.
        held = [os.readlink(f"/proc/{worker}/fd/{fd}") for fd in os.listdir(f"/proc/{worker}/fd")]
        assert any(link.startswith(f"{out}/") and link.endswith("(deleted)") for link in held), held
        # A new pipe at the path before the kill: the retry, which cannot
        # start before it, opens that one, never the old pipe with what the
        # killed reader left in it (a retry quick enough to open the old one
        # read half the file, and the job passed without it).
        fresh = inputs_dir / "killed.next"
        os.mkfifo(fresh)
        os.replace(fresh, fifo)
        os.kill(worker, signal.SIGKILL)
        # Gone (its descriptors closed) before the pipe is let go: a reader
        # still there would keep the old pipe, and what it held, for the retry.
        deadline = time.monotonic() + 30
        while _reads(worker, fifo) and time.monotonic() < deadline:
            time.sleep(0.05)
        feeder.killed.set()
        status, log = finish(driver, log)
    except BaseException:
        if driver.poll() is None:
            os.killpg(driver.pid, signal.SIGKILL)
        raise
    assert status == 0, log[-5000:]
    assert feeder.done.is_set() and feeder.error is None, feeder.error  # the task was retried
    assert f"{len(inputs)} files, {len(inputs)} rewritten, 0 failed" in log, log[-5000:]
    check_outputs(inputs, sources, out, _rows(report))


def test_a_virtual_environment_not_activated(corpus, tmp_path):
    """`env/bin/python -m htmlabs.spark` with the environment neither on
    PATH nor named: the workers run the driver's interpreter, not the
    `python3` that PATH gives, which has no htmlabs."""
    shim = tmp_path / "bin"
    shim.mkdir()
    base = getattr(sys, "_base_executable", None) or sys.executable
    for name in ("python3", "python"):
        (shim / name).symlink_to(base)
    env = _environment(PYSPARK_SUBMIT_ARGS="--master local[2] pyspark-shell")
    env["PATH"] = f"{shim}{os.pathsep}{env['PATH']}"
    plain = subprocess.run(["python3", "-c", "import htmlabs"], env=env, capture_output=True, text=True)
    assert "No module named 'htmlabs'" in plain.stderr, "PATH's python3 has htmlabs: the test shows nothing"

    corpus_warc = corpus / "warc/corpus-wget.warc.gz"
    inputs = [str(corpus_warc), str(FIXTURES / "shapes.warc.gz")]
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, "-m", "htmlabs.spark", *inputs, "--output", str(out)], cwd=tmp_path,
                          env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=JOB)
    assert done.returncode == 0, done.stderr[-5000:]
    assert "2 files, 2 rewritten, 0 failed" in done.stderr
    assert sorted(os.listdir(out)) == ["corpus-wget.warc.gz", "shapes.warc.gz"]
    for path in inputs:
        alone = htmlabs.rewrite_warc(path, tmp_path / "alone.warc.gz")
        assert warcio_check(out / os.path.basename(path)) == warcio_check(tmp_path / "alone.warc.gz")
        assert alone.rewritten > 0
