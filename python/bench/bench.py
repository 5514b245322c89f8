"""Measurements of the Python package, for benches/RESULTS.md; each prints a
Markdown table. Run with the venv's python, the wheel installed, from the
checkout's root (../shared beside it):

    python python/bench/bench.py threads [ROUNDS]   # rewrite() in 1 and 2 threads: the GIL released
    python python/bench/bench.py lxml [ROUNDS]      # the module vs warcio + lxml on the corpus WARC's records
    python python/bench/bench.py spark [ROUNDS]     # htmlabs.spark over 8 WARC files, local[1] vs local[2]

(lxml: pip install lxml; spark: pyspark and Java 17.)

Rounds are interleaved (each way once a round) so that a shared machine's
noise hits every way alike; the figure is the median. CPU seconds are the
process's."""

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


def bench_spark(rounds):
    from pyspark.sql import SparkSession

    from htmlabs.spark import rewrite_warcs

    os.environ["PYSPARK_PYTHON"] = sys.executable
    work = Path(tempfile.mkdtemp(prefix="htmlabs-spark-bench-"))
    try:
        # 8 files: each the corpus crawl COPIES times over (gzip members
        # concatenate into one archive): 16, ~82 MB, so that a task's
        # work (~1.5 s) outweighs Spark's cost of a task.
        copies = int(os.environ.get("HTMLABS_BENCH_COPIES", "16"))
        data = CORPUS_WARC.read_bytes() * copies
        inputs = []
        for i in range(8):
            path = work / f"in{i}.warc.gz"
            path.write_bytes(data)
            inputs.append(str(path))
        mb = len(data) * 8 / 1e6
        times = {1: [], 2: []}
        for _ in range(rounds):
            for n in (1, 2):
                spark = (SparkSession.builder.master(f"local[{n}]").appName("htmlabs-bench")
                         .config("spark.ui.enabled", "false")
                         .config("spark.ui.showConsoleProgress", "false").getOrCreate())
                spark.sparkContext.setLogLevel("ERROR")
                spark.sparkContext.parallelize([0], 1).count()  # the session is up
                out = work / "out"
                shutil.rmtree(out, ignore_errors=True)
                t0 = time.perf_counter()
                rows = rewrite_warcs(spark, inputs, str(out)).collect()
                wall = time.perf_counter() - t0
                spark.stop()
                assert all(r.error is None for r in rows), rows
                times[n].append((wall, None))
        print(f"8 WARC files of {len(data) / 1e6:.1f} MB each ({mb:.0f} MB gzip; each the corpus crawl {copies} times), "
              f"rewrite_warcs into a fresh directory, median of {rounds} rounds; "
              f"load average at the end {os.getloadavg()[0]:.1f}\n")
        med = {n: statistics.median(w for w, _ in t) for n, t in times.items()}
        table(["master", "wall s: median (fastest–slowest)", "MB/s", "speed-up"], [
            [f"local[{n}]", f"{med[n]:.2f} ({min(w for w, _ in t):.2f}–{max(w for w, _ in t):.2f})",
             f"{mb / med[n]:.1f}", f"{med[1] / med[n]:.2f}×"]
            for n, t in times.items()
        ])
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    what = sys.argv[1]
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    {"threads": bench_threads, "lxml": bench_lxml, "spark": bench_spark}[what](rounds)
