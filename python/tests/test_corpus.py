"""The round trip against the command line: every page of the shared
corpus, through rewrite(), comes out as `htmlabs --retrieved-from URL` writes
it, byte for byte, with the same warnings."""

from conftest import run_cli

import htmlabs


def test_every_corpus_page_equals_the_clis_output(cli, corpus):
    pages = corpus / "pages"
    listed = []
    for line in (pages / "urls.tsv").read_text().splitlines():
        if line and not line.startswith("#"):
            name, url = line.split("\t")[:2]
            listed.append((name, url))
    assert sorted(p.name for p in pages.glob("*.html")) == sorted(n for n, _ in listed)
    differ = []
    for name, url in listed:
        html = (pages / name).read_bytes()
        status, out, err = run_cli(cli, ["--retrieved-from", url, str(pages / name)])
        r = htmlabs.rewrite(html, url)
        if status != 0 or r.html != out or ["htmlabs: warning: " + w for w in r.warnings] != err:
            differ.append(name)
        assert r.base is not None
    assert differ == []
    assert len(listed) >= 170
