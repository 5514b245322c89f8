"""FastWARC reading every record of an archive and all of its content, the
fastest WARC reader in Python: for benches/warc.rs, a floor of reading.

Usage: python benches/warc_fastwarc.py IN.warc.gz

Iterates every record (HTTP headers parsed, as by default), reads its
content to the end, and prints "<records> <bytes of content>".
"""

import sys

from fastwarc.warc import ArchiveIterator, WarcRecordType


def main():
    records = content = 0
    for record in ArchiveIterator(sys.argv[1], record_types=WarcRecordType.any_type):
        records += 1
        content += len(record.reader.read())
    print(records, content)


if __name__ == "__main__":
    main()
