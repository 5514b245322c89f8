"""Measurements of the Python package, for benches/RESULTS.md; each prints a
Markdown table. Run with the venv's python, the wheel installed, from the
checkout's root (../shared beside it):

    python python/bench/bench.py threads [ROUNDS]   # rewrite() in 1 and 2 threads: the GIL released
    python python/bench/bench.py lxml [ROUNDS]      # the module vs warcio + lxml on the corpus WARC's records
    python python/bench/bench.py spark [ROUNDS]     # htmlabs.spark in local[1] and local[2] vs the command line and warcio + lxml
    python python/bench/bench.py links [ROUNDS]     # extract_links vs warcio + lxml + urljoin, in the same Spark

(lxml: pip install lxml; spark and links: pyspark and Java 17, and the
command line's release build, target/release/htmlabs or HTMLABS_BIN.)

Rounds are interleaved (each way once a round) so that a shared machine's
noise hits every way alike; the figure is the median. CPU seconds are the
process's (spark: with its JVM's and Python workers'; the command line's:
its processes')."""

import gzip
import io
import os
import resource
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import htmlabs

SHARED = Path(__file__).resolve().parents[3] / "shared"
CORPUS_WARC = SHARED / "corpus/warc/corpus-wget.warc.gz"


def cpu(children=False):
    usage = resource.getrusage(resource.RUSAGE_CHILDREN if children else resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def corpus_pages():
    pages = SHARED / "corpus/pages"
    out = []
    for line in (pages / "urls.tsv").read_text().splitlines():
        if line and not line.startswith("#"):
            name, url = line.split("\t")[:2]
            out.append(((pages / name).read_bytes(), url))
    return out


def table(header, rows):
    print("| " + " | ".join(header) + " |")
    print("| " + " | ".join("---" if i == 0 else "---:" for i in range(len(header))) + " |")
    for row in rows:
        print("| " + " | ".join(str(c) for c in row) + " |")


def bench_threads(rounds):
    pages = corpus_pages() * 3
    mb = sum(len(p) for p, _ in pages) / 1e6

    def work(share):
        for page, url in share:
            htmlabs.rewrite(page, url)

    def run(n):
        shares = [pages[i::n] for i in range(n)]
        threads = [threading.Thread(target=work, args=(s,)) for s in shares]
        c0, t0 = cpu(), time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return time.perf_counter() - t0, cpu() - c0

    results = {1: [], 2: []}
    for _ in range(rounds):
        for n in (1, 2):
            results[n].append(run(n))
    walls = {n: statistics.median(w for w, _ in r) for n, r in results.items()}
    print(f"{len(pages)} pages ({mb:.1f} MB: the corpus pages thrice), rewrite() per page, median of {rounds} rounds; "
          f"load average at the end {os.getloadavg()[0]:.1f}\n")
    table(["threads", "wall s: median (fastest–slowest)", "MB/s", "CPU s", "CPU s ÷ wall s"], [
        [n, f"{walls[n]:.2f} ({min(w for w, _ in r):.2f}–{max(w for w, _ in r):.2f})", f"{mb / walls[n]:.1f}",
         f"{statistics.median(c for _, c in r):.2f}", f"{statistics.median(c / w for w, c in r):.2f}"]
        for n, r in results.items()
    ])
    speedups = sorted(w1 / w2 for (w1, _), (w2, _) in zip(results[1], results[2]))
    print(f"\nspeed-up (1 thread ÷ 2 threads, wall, each round): median {statistics.median(speedups):.2f}× "
          f"({speedups[0]:.2f}–{speedups[-1]:.2f})")
    # The control: hashlib's sha256 releases the GIL on large data; if it
    # does not speed up either, the machine had no second core to give.
    import hashlib

    data = b"x" * (64 << 20)

    def control(n):
        def hash_share():
            for _ in range(4 // n):
                hashlib.sha256(data).digest()

        threads = [threading.Thread(target=hash_share) for _ in range(n)]
        t0 = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return time.perf_counter() - t0

    controls = sorted(control(1) / control(2) for _ in range(rounds))
    print(f"control, hashlib.sha256 of 4 × 64 MiB in 1 and 2 threads: median {statistics.median(controls):.2f}× "
          f"({controls[0]:.2f}–{controls[-1]:.2f})")


def warc_records(path):
    """The corpus WARC's HTML responses, as warcio gives them: (URL, HTTP
    headers, body)."""
    from warcio.archiveiterator import ArchiveIterator

    out = []
    with open(path, "rb") as f:
        for record in ArchiveIterator(f):
            if record.rec_type != "response" or not record.http_headers:
                continue
            if "html" not in (record.http_headers.get_header("Content-Type") or ""):
                continue
            out.append((record.rec_headers.get_header("WARC-Target-URI"), record.http_headers.headers,
                        record.content_stream().read()))
    return out


def lxml_rewrite(body, url):
    import lxml.html

    doc = lxml.html.document_fromstring(body, base_url=url)
    doc.make_links_absolute(url)
    return lxml.html.tostring(doc)


def warcio_lxml_run(src, dst):
    """The script a user writes today: warcio reads, lxml rewrites, warcio
    writes each page after its record as a conversion."""
    from warcio.archiveiterator import ArchiveIterator
    from warcio.warcwriter import WARCWriter

    writer = WARCWriter(dst, gzip=True)
    with open(src, "rb") as f:
        for record in ArchiveIterator(f):
            if not (record.rec_type == "response" and record.http_headers and
                    "html" in (record.http_headers.get_header("Content-Type") or "")):
                writer.write_record(record)
            else:
                url = record.rec_headers.get_header("WARC-Target-URI")
                body = record.content_stream().read()
                # The original again, from what was read (its stream is spent).
                writer.write_record(writer.create_warc_record(
                    url, "response", payload=io.BytesIO(body), warc_headers=record.rec_headers,
                    http_headers=record.http_headers))
                page = lxml_rewrite(body, url)
                writer.write_record(writer.create_warc_record(
                    url, "conversion", payload=io.BytesIO(page),
                    warc_content_type="text/html",
                    warc_headers_dict={"WARC-Refers-To": record.rec_headers.get_header("WARC-Record-ID")}))


def bench_lxml(rounds):
    records = warc_records(CORPUS_WARC)
    mb = sum(len(b) for _, _, b in records) / 1e6
    ways = {
        "htmlabs.rewrite(body, url, headers=…) per record": lambda: [
            htmlabs.rewrite(b, u, headers=h) for u, h, b in records],
        "lxml: document_fromstring, make_links_absolute, tostring per record": lambda: [
            lxml_rewrite(b, u) for u, _, b in records],
        "htmlabs.rewrite_warc(IN, OUT): the whole archive": lambda: htmlabs.rewrite_warc(
            CORPUS_WARC, io.BytesIO()),
        "warcio + lxml script: the whole archive, conversions written by warcio": lambda: warcio_lxml_run(
            CORPUS_WARC, io.BytesIO()),
    }
    times = {name: [] for name in ways}
    for _ in range(rounds):
        for name, way in ways.items():
            c0, t0 = cpu(), time.perf_counter()
            way()
            times[name].append((time.perf_counter() - t0, cpu() - c0))
    print(f"{len(records)} HTML responses of {CORPUS_WARC.name} ({mb:.1f} MB of pages; the archive "
          f"{CORPUS_WARC.stat().st_size / 1e6:.1f} MB gzip), median of {rounds} rounds; "
          f"load average at the end {os.getloadavg()[0]:.1f}\n")
    names = list(ways)
    med = {n: statistics.median(w for w, _ in times[n]) for n in names}
    cpus = {n: statistics.median(c for _, c in times[n]) for n in names}
    table(["way", "wall s: median (fastest–slowest)", "MB/s of pages", "CPU s", "÷ htmlabs: wall", "÷ htmlabs: CPU"], [
        [n, f"{med[n]:.3f} ({min(w for w, _ in times[n]):.3f}–{max(w for w, _ in times[n]):.3f})",
         f"{mb / med[n]:.1f}", f"{cpus[n]:.3f}",
         f"{med[n] / med[names[0 if i < 2 else 2]]:.2f}×", f"{cpus[n] / cpus[names[0 if i < 2 else 2]]:.2f}×"]
        for i, n in enumerate(names)
    ])


def tree_cpu(root):
    """CPU seconds of the live processes under `root` (not `root` itself),
    each with its reaped children's: Spark's JVM (in local mode, every
    executor thread) and its Python workers."""
    parents = {}
    times = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents.setdefault(int(fields[1]), []).append(int(name))
        times[int(name)] = sum(int(t) for t in fields[11:15])  # utime stime cutime cstime
    total, todo = 0, list(parents.get(root, []))
    while todo:
        pid = todo.pop()
        total += times.get(pid, 0)
        todo += parents.get(pid, [])
    return total / os.sysconf("SC_CLK_TCK")


def command_line():
    named = os.environ.get("HTMLABS_BIN")
    path = Path(named) if named else Path(__file__).resolve().parents[2] / "target/release/htmlabs"
    if not path.is_file():
        sys.exit(f"no htmlabs binary at {path} (cargo build --release, or HTMLABS_BIN)")
    return str(path)


def local_session(n):
    """A Spark session on `n` local cores with its Python workers started:
    neither is timed."""
    from pyspark.sql import SparkSession

    spark = (SparkSession.builder.master(f"local[{n}]").appName("htmlabs-bench")
             .config("spark.ui.enabled", "false")
             .config("spark.ui.showConsoleProgress", "false").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    spark.sparkContext.parallelize(range(n), n).map(lambda x: x).collect()
    return spark


def bench_spark(rounds):
    """htmlabs.spark in local[1] and local[2] over files of ~67 MB, beside
    the command line's `--warc --jobs 1` on the same files, one after
    another, the control: two command-line processes at once, which
    shows what the machine gives two processes then, and the usual job
    (warcio + lxml, `warcio_lxml_run`) in the same Spark, one task a file."""
    import subprocess

    from htmlabs.spark import rewrite_warcs

    binary = command_line()
    os.environ["PYSPARK_PYTHON"] = sys.executable
    work = Path(tempfile.mkdtemp(prefix="htmlabs-spark-bench-"))
    try:
        # Each file the corpus crawl COPIES times over (gzip members
        # concatenate into one archive), so that a task's work (seconds)
        # outweighs what Spark spends on a task.
        copies = int(os.environ.get("HTMLABS_BENCH_COPIES", "13"))
        count = int(os.environ.get("HTMLABS_BENCH_FILES", "4"))
        data = CORPUS_WARC.read_bytes() * copies
        inputs = []
        for i in range(count):
            path = work / f"in{i}.warc.gz"
            path.write_bytes(data)
            inputs.append(str(path))
        mb = len(data) * count / 1e6
        out = work / "out"

        def fresh():
            shutil.rmtree(out, ignore_errors=True)
            out.mkdir()
            os.sync()  # what the run before left dirty is written back before the clock

        def cli(files):
            for path in files:
                subprocess.run([binary, "--warc", "--jobs", "1", path, "-o", str(out / Path(path).name)],
                               check=True, stderr=subprocess.DEVNULL)

        def run_cli(processes):
            fresh()
            shares = [inputs[i::processes] for i in range(processes)]
            threads = [threading.Thread(target=cli, args=(share,)) for share in shares]
            c0, t0 = cpu(children=True), time.perf_counter()
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            wall = time.perf_counter() - t0
            assert len(os.listdir(out)) == count
            return wall, cpu(children=True) - c0

        def htmlabs_job(spark, paths, dest):
            rows = rewrite_warcs(spark, paths, dest).collect()
            assert all(r.error is None for r in rows), rows

        def usual_job_(spark, paths, dest):
            usual_rewrite_job(spark, paths, dest)
            assert len(os.listdir(dest)) == len(paths)

        def run_spark(n, job):
            spark = local_session(n)
            # The JVM has run the job's code once (on the corpus crawl)
            # before the clock.
            fresh()
            job(spark, [str(CORPUS_WARC)], str(work / "warm"))
            fresh()
            c0, t0 = cpu() + tree_cpu(os.getpid()), time.perf_counter()
            job(spark, inputs, str(out))
            wall = time.perf_counter() - t0
            used = cpu() + tree_cpu(os.getpid()) - c0
            spark.stop()
            return wall, used

        ways = {
            "Spark `local[1]`": lambda: run_spark(1, htmlabs_job),
            "Spark `local[2]`": lambda: run_spark(2, htmlabs_job),
            "command line `--warc --jobs 1`, the files one after another": lambda: run_cli(1),
            "control: two command-line processes at once, half the files each": lambda: run_cli(2),
            "warcio + lxml, Spark `local[1]`": lambda: run_spark(1, usual_job_),
            "warcio + lxml, Spark `local[2]`": lambda: run_spark(2, usual_job_),
        }
        names = list(ways)
        times = {name: [] for name in names}
        for r in range(rounds):
            for name in names[r % len(names):] + names[: r % len(names)]:
                times[name].append(ways[name]())
        cores = os.cpu_count()
        model = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")),
                     "?")
        print(f"{count} WARC files of {len(data) / 1e6:.1f} MB ({mb:.0f} MB gzip; each the corpus crawl {copies} times), "
              f"each way into a fresh directory, median of {rounds} rounds (interleaved); nproc {cores}, {model}. "
              f"Spark's CPU is its JVM's, its Python workers' and the driver's; before the clock, the session is "
              f"started, its workers too, and the corpus crawl rewritten once. warcio + lxml: the usual script "
              f"(`warcio_lxml_run`: warcio reads and writes, lxml rewrites each page) on each file, one task a "
              f"file, as htmlabs.spark's.\n")
        med = {n: statistics.median(w for w, _ in times[n]) for n in names}
        table(["way", "wall s: median (fastest–slowest)", "MB/s", "CPU s", "CPU s ÷ wall s"], [
            [n, f"{med[n]:.2f} ({min(w for w, _ in times[n]):.2f}–{max(w for w, _ in times[n]):.2f})",
             f"{mb / med[n]:.1f}", f"{statistics.median(c for _, c in times[n]):.2f}",
             f"{statistics.median(c / w for w, c in times[n]):.2f}"]
            for n in names
        ])

        def ratio(a, b, cpu=False):
            k = 1 if cpu else 0
            rs = sorted(x[k] / y[k] for x, y in zip(times[names[a]], times[names[b]]))
            return f"{statistics.median(rs):.2f}× ({rs[0]:.2f}–{rs[-1]:.2f})", statistics.median(rs)

        speedup, s = ratio(0, 1)
        control, _ = ratio(2, 3)
        against, a = ratio(0, 2)
        against_cpu, _ = ratio(0, 2, cpu=True)
        print(f"\n- `local[2]` ÷ `local[1]`, wall (each round's ratio, median and range): **{speedup}**; "
              f"target ≥ 1.7×: {'met' if s >= 1.7 else 'not met'}")
        print(f"- the control, one command line after another ÷ two at once: {control}")
        print(f"- `local[1]` ÷ the command line's `--jobs 1`, wall: **{against}**; target ≤ 1.15×: "
              f"{'met' if a <= 1.15 else 'not met'}; CPU: {against_cpu}")
        per_core, _ = ratio(4, 0, cpu=True)
        usual_wall, _ = ratio(4, 0)
        usual_2, _ = ratio(4, 5)
        print(f"- throughput per core, htmlabs ÷ warcio + lxml (its CPU s ÷ htmlabs's, `local[1]`): **{per_core}**; "
              f"wall, `local[1]`: {usual_wall}; warcio + lxml's `local[2]` ÷ `local[1]`, wall: {usual_2}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


def usual_rewrite_job(spark, inputs, output_dir):
    """The usual rewrite job in Spark: `warcio_lxml_run` on each file, one
    task a file (as htmlabs.spark's), each output under its own name in
    `output_dir`."""

    def partition(paths):
        for path in paths:
            with open(os.path.join(output_dir, os.path.basename(path)), "wb") as dst:
                warcio_lxml_run(path, dst)
            yield path

    os.makedirs(output_dir, exist_ok=True)
    return spark.sparkContext.parallelize(inputs, len(inputs)).mapPartitions(partition).collect()


def usual_job(spark, inputs):
    """The usual link job in Spark: python/tools/usual_links.py's script
    (warcio, lxml's iterlinks, urljoin) on each file, one task a file, its
    rows a DataFrame, as extract_links's are."""
    import importlib.util

    from pyspark import cloudpickle

    spec = importlib.util.spec_from_file_location(
        "usual_links", Path(__file__).resolve().parents[1] / "tools/usual_links.py")
    usual = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = usual
    spec.loader.exec_module(usual)
    # The workers cannot import it: its code travels with the task.
    cloudpickle.register_pickle_by_value(usual)
    schema = "record string, target string, element string, attribute string, original string, absolute string"

    def partition(paths):
        for path in paths:
            yield from usual.usual_links(path)

    rows = spark.sparkContext.parallelize(inputs, len(inputs)).mapPartitions(partition)
    return spark.createDataFrame(rows, schema, verifySchema=False)


def bench_links(rounds):
    """Link extraction in Spark local[1] and local[2]: htmlabs's
    extract_links beside the usual job (warcio + lxml + urljoin) over the
    same files, each written as Parquet; the command line's `--warc
    --links --jobs 1` on the same files, one after another; and what Spark
    and its Parquet writer alone take of htmlabs's rows (read from Arrow
    files made before the clock): the part of extract_links's CPU that no
    work of htmlabs's can make smaller."""
    import subprocess

    import pyarrow as pa

    from htmlabs.spark import LINK_SCHEMA, extract_links
    from htmlabs.spark.schema import arrow_schema
    from htmlabs.spark.tasks import file_batches

    binary = command_line()
    os.environ["PYSPARK_PYTHON"] = sys.executable
    work = Path(tempfile.mkdtemp(prefix="htmlabs-links-bench-"))
    try:
        copies = int(os.environ.get("HTMLABS_BENCH_COPIES", "3"))
        count = int(os.environ.get("HTMLABS_BENCH_FILES", "4"))
        data = CORPUS_WARC.read_bytes() * copies
        inputs = []
        for i in range(count):
            path = work / f"in{i}.warc.gz"
            path.write_bytes(data)
            inputs.append(str(path))
        mb = len(data) * count / 1e6
        out = work / "out"
        found = {}
        # Each file's rows as extract_links makes them, in an Arrow file.
        arrow_of = {}
        for i, path in enumerate(inputs[:1] + [str(CORPUS_WARC)]):
            arrow_of[path] = str(work / f"rows{i}.arrow")
            with pa.ipc.new_file(arrow_of[path], arrow_schema()) as rows:
                for batch in file_batches(path, {"jobs": 1}):
                    rows.write_batch(batch)
        for path in inputs[1:]:
            arrow_of[path] = arrow_of[inputs[0]]  # the same bytes, so the same rows

        def rows_alone(spark, paths):
            """The rows of each file from its Arrow file, one task a file,
            into the same mapInArrow as extract_links's."""
            files = [arrow_of[p] for p in paths]

            def partition(batches):
                for batch in batches:
                    for path in batch.column(0).to_pylist():
                        with pa.memory_map(path) as source:
                            reader = pa.ipc.open_file(source)
                            for i in range(reader.num_record_batches):
                                yield reader.get_batch(i)

            rdd = spark.sparkContext.parallelize([(f,) for f in files], numSlices=len(files))
            return spark.createDataFrame(rdd, "path string").mapInArrow(partition, LINK_SCHEMA)

        def parquet_per_task(spark, paths):
            """extract_links(parquet=…): each task writes its Parquet file."""
            class Written:
                def __init__(self):
                    self.write = self

                def parquet(self, out):
                    extract_links(spark, paths, parquet=out)
            return Written()

        def run_spark(n, job):
            spark = local_session(n)
            # The job's code runs once before the clock (on the corpus crawl).
            shutil.rmtree(out, ignore_errors=True)
            job(spark, [str(CORPUS_WARC)]).write.parquet(str(out))
            shutil.rmtree(out, ignore_errors=True)
            c0, t0 = cpu() + tree_cpu(os.getpid()), time.perf_counter()
            job(spark, inputs).write.parquet(str(out))
            wall = time.perf_counter() - t0
            used = cpu() + tree_cpu(os.getpid()) - c0
            found[job.__name__] = spark.read.parquet(str(out)).count()
            spark.stop()
            return wall, used

        def run_cli():
            c0, t0 = cpu(children=True), time.perf_counter()
            links = 0
            for path in inputs:
                done = subprocess.run([binary, "--warc", "--links", "--jobs", "1", "-q", path],
                                      check=True, stdout=subprocess.PIPE)
                links += done.stdout.count(b"\n")
            found["cli"] = links
            return time.perf_counter() - t0, cpu(children=True) - c0

        ways = {
            "htmlabs `extract_links`, Spark `local[1]`": lambda: run_spark(1, extract_links),
            "htmlabs `extract_links`, Spark `local[2]`": lambda: run_spark(2, extract_links),
            "htmlabs `extract_links(parquet=…)`, each task writing its Parquet, Spark `local[1]`": lambda: run_spark(
                1, parquet_per_task),
            "htmlabs `extract_links(parquet=…)`, each task writing its Parquet, Spark `local[2]`": lambda: run_spark(
                2, parquet_per_task),
            "warcio + lxml + urljoin, Spark `local[1]`": lambda: run_spark(1, usual_job),
            "warcio + lxml + urljoin, Spark `local[2]`": lambda: run_spark(2, usual_job),
            "command line `--warc --links --jobs 1`, the files one after another": run_cli,
            "htmlabs's rows from Arrow files, Spark `local[1]`: Spark and Parquet alone": lambda: run_spark(
                1, rows_alone),
        }
        names = list(ways)
        times = {name: [] for name in names}
        for r in range(rounds):
            for name in names[r % len(names):] + names[: r % len(names)]:
                times[name].append(ways[name]())
        cores = os.cpu_count()
        model = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")),
                     "?")
        print(f"{count} WARC files of {len(data) / 1e6:.1f} MB ({mb:.0f} MB gzip; each the corpus crawl {copies} "
              f"times), each Spark way's rows written as Parquet into a fresh directory, median of {rounds} rounds "
              f"(interleaved); nproc {cores}, {model}. Spark's CPU is its JVM's, its Python workers' and the "
              f"driver's; before the clock, the session is started, its workers too, and the job run once on the "
              f"corpus crawl. Links: htmlabs {found.get('extract_links')} rows, the usual job "
              f"{found.get('usual_job')}, the command line {found.get('cli')} lines.\n")
        med = {n: statistics.median(w for w, _ in times[n]) for n in names}
        table(["way", "wall s: median (fastest–slowest)", "MB/s", "CPU s", "MB per CPU s"], [
            [n, f"{med[n]:.2f} ({min(w for w, _ in times[n]):.2f}–{max(w for w, _ in times[n]):.2f})",
             f"{mb / med[n]:.1f}", f"{statistics.median(c for _, c in times[n]):.2f}",
             f"{mb / statistics.median(c for _, c in times[n]):.1f}"]
            for n in names
        ])

        def ratio(a, b, k=0):
            rs = sorted(x[k] / y[k] for x, y in zip(times[names[a]], times[names[b]]))
            return f"{statistics.median(rs):.2f}× ({rs[0]:.2f}–{rs[-1]:.2f})", statistics.median(rs)

        per_core, p = ratio(4, 0, k=1)
        per_core_parquet, pp = ratio(4, 2, k=1)
        wall_1, _ = ratio(4, 0)
        wall_parquet, _ = ratio(4, 2)
        ours, _ = ratio(0, 1)
        ours_parquet, _ = ratio(2, 3)
        theirs, _ = ratio(4, 5)
        against, _ = ratio(2, 6)
        print(f"\n- throughput per core, htmlabs ÷ the usual job (its CPU s ÷ htmlabs's, `local[1]`): each task "
              f"writing its Parquet **{per_core_parquet}**, through Spark's writer {per_core}; target ≥ 5×: "
              f"{'met' if max(p, pp) >= 5 else 'not met'}; wall, `local[1]`: {wall_parquet} and {wall_1}")
        print(f"- `local[2]` ÷ `local[1]`, wall: htmlabs {ours_parquet} (Parquet per task), {ours} (through "
              f"Spark), the usual job {theirs}")
        print(f"- htmlabs `local[1]`, Parquet per task, ÷ the command line's `--links --jobs 1`, wall: {against}")
        cpus = {n: statistics.median(c for _, c in times[n]) for n in names}
        usual, floor, ours_cpu = cpus[names[4]], cpus[names[7]], cpus[names[0]]
        print(f"- what bounds it: Spark and its Parquet writer alone take {floor:.2f} CPU s of htmlabs's rows "
              f"(`local[1]`), {floor / usual:.0%} of the usual job's {usual:.2f}; 5× per core is "
              f"{usual / 5:.2f} CPU s in all, so it leaves htmlabs's own work {usual / 5 - floor:.2f} CPU s "
              f"(it takes {ours_cpu - floor:.2f}: extract_links's {ours_cpu:.2f} less the floor); with htmlabs's own "
              f"work free, the ratio would be {usual / floor:.1f}×")
        parquet_cpu, listing = cpus[names[2]], cpus[names[6]]
        print(f"- each task writing its Parquet: {parquet_cpu:.2f} CPU s in all, of which the listing itself (the "
              f"command line's `--links`, a JSON line a link) {listing:.2f}; 5× per core needs "
              f"{usual / 5:.2f}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    what = sys.argv[1]
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    {"threads": bench_threads, "lxml": bench_lxml, "spark": bench_spark, "links": bench_links}[what](rounds)
