"""A local HTTP server for tests/sources/http.rs, whose responses curl and wget
capture as users' saved files are made: redirects (relative and absolute
Location), chunked bodies, gzip and brotli, base fields, charsets, a non-HTML
type. Python's http.server writes the bytes; the clients save them.

Prints its port (the argument, or a free one) on the first line, serves until its standard input closes
(when the test process that started it ends). Brotli is Google's `brotli`
package (pip), when it is installed (.ci/run installs it).

`http_server.py --site DIR [LOG]` serves the directory DIR as a site
instead (SiteHandler), for the wget mirror tests/judges/chromium.rs makes
and Chromium reads, the corpus pages laid out as a site
(tests/judges/chromium/corpus_site.rs), and benches/mirror.rs's; every
answer is written to LOG, when one is named.

`http_server.py --site DIR --host plain|github-pages|netlify|cloudflare-pages|gitlab-pages`
serves DIR as that host does, by the rules `--check-links --host` checks
links against (src/url/host.rs; HostHandler; Netlify's redirects as its
documentation states them, NetlifyRules; Cloudflare's as workers-sdk's
pages-shared reads them, CloudflareRules; GitLab's as gitlab-pages's
source reads them, GitlabRules), for tests/judges/link_check.rs.
"""

import gzip
import http.server
import os
import re
import sys
import threading
import tomllib
import urllib.parse
import zlib

try:
    import brotli
except ImportError:
    brotli = None

PAGE = (
    b"<!doctype html><html><head><meta charset=utf-8>"
    b"<link rel=stylesheet href=style.css></head>\n"
    b"<body><a href=\"../up.html\">up</a> <img src='/img/a.png'> "
    b"<a href=\"#top\">top</a></body></html>\n"
)

# A page whose <meta> contradicts its Content-Type: in windows-1252, the
# byte 0xE9 is `é`; in UTF-8 it is not a character.
LATIN = (
    b"<html><head><meta charset=utf-8></head>"
    b"<a href=\"caf\xe9.html\">caf\xe9</a></html>\n"
)


def chunks(body, size):
    out = b""
    for i in range(0, len(body), size):
        part = body[i:i + size]
        out += b"%x\r\n" % len(part) + part + b"\r\n"
    return out + b"0\r\n\r\n"


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "htmlabs-test"
    sys_version = ""

    def log_message(self, *args):
        pass

    def date_time_string(self, timestamp=None):
        # The same bytes on every run.
        return "Tue, 24 Nov 2026 12:00:00 GMT"

    def send(self, status, fields, body, length=True):
        self.send_response(status)
        for name, value in fields:
            self.send_header(name, value)
        if length:
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def redirect(self, status, location):
        self.send(status, [("Location", location), ("Content-Type", "text/html")], b"moved\n")

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        self.rfile.read(length)
        self.do_GET()

    def do_GET(self):
        html = [("Content-Type", "text/html; charset=utf-8")]
        port = self.server.server_address[1]
        path = self.path
        if path == "/start/r1":
            self.redirect(302, "../docs/r2")
        elif path == "/docs/r2":
            self.redirect(301, "http://127.0.0.1:%d/final/page.html" % port)
        elif path in ("/final/page.html", "/plain/page.html"):
            self.send(200, html, PAGE)
        elif path == "/chunked/page.html":
            self.send(200, html + [("Transfer-Encoding", "chunked")], chunks(PAGE, 50), length=False)
        elif path == "/gzip/page.html":
            body = gzip.compress(PAGE, mtime=0)
            self.send(200, html + [("Content-Encoding", "gzip")], body)
        elif path == "/chunked-gzip/page.html":
            body = chunks(gzip.compress(PAGE, mtime=0), 40)
            self.send(200, html + [("Content-Encoding", "gzip"), ("Transfer-Encoding", "chunked")], body, length=False)
        elif path == "/deflate/page.html":
            self.send(200, html + [("Content-Encoding", "deflate")], zlib.compress(PAGE))
        elif path == "/br/page.html":
            body = brotli.compress(PAGE, quality=11, lgwin=18)
            self.send(200, html + [("Content-Encoding", "br")], body)
        elif path == "/content-base/page.html":
            self.send(200, html + [("Content-Base", "http://cdn.example/base/")], PAGE)
        elif path == "/content-location/page.html":
            self.send(200, html + [("Content-Location", "../elsewhere/")], PAGE)
        elif path == "/content-location-absolute/page.html":
            self.send(200, html + [("Content-Location", "http://mirror.example/m/")], PAGE)
        elif path == "/base-folded/page.html":
            # RFC 1808 §3.1's own field, folded over two lines (RFC 9112's
            # obs-fold); http.server writes the value as it is given.
            self.send(200, html + [("Base", "<URL:http://folded.example/a/\r\n   b/c>")], PAGE)
        elif path == "/embedded/page.html":
            body = PAGE.replace(b"<head>", b"<head><base href=\"http://embedded.example/e/\">")
            self.send(200, html + [("Content-Base", "http://cdn.example/base/")], body)
        elif path == "/latin/page.html":
            self.send(200, [("Content-Type", "text/html; charset=windows-1252")], LATIN)
        elif path == "/image.png":
            self.send(200, [("Content-Type", "image/png")], b"\x89PNG\r\n\x1a\n<a href=x>")
        else:
            self.send(404, html, b"<a href=missing>not found</a>\n")


# The media type of a file of a served site, by its name's extension, as a
# server's configuration says it (a PHP script's output is a page).
SITE_TYPES = {
    ".html": "text/html", ".htm": "text/html", ".php": "text/html",
    ".css": "text/css", ".svg": "image/svg+xml", ".png": "image/png",
    ".txt": "text/plain",
}


class SiteHandler(http.server.BaseHTTPRequestHandler):
    """A directory served as a site. A target's path names the file of that
    path (its escapes undone), a directory its `index.html`; a directory
    asked without its slash is redirected to it (301, as http.server and
    Apache do). A target with a query is answered with the file named after
    the whole target when the directory holds one (`page.php?id=1`: a
    page a script makes for each query, saved as a file beside the
    script's), else with the path's file, the query ignored, as a static
    server does. A name no file has is the file `wget --adjust-extension`
    saves it as, `.html` or `.css` after it (`page.php?id=1.html`,
    `about.php.html`): the tree wget saved, served as the site was. The
    media type is the path's extension's (`.php` a page's), else the
    served file's. Anything else is a 404. Each answer is a line of the
    log: status, target, and the file served (its path under the
    directory) or the Location."""

    protocol_version = "HTTP/1.1"
    server_version = "htmlabs-test"
    sys_version = ""

    def log_message(self, *args):
        pass

    def answer(self, status, fields, body, note):
        if self.server.log:
            with self.server.log_lock:
                self.server.log.write(f"{status}\t{self.path}\t{note}\n")
                self.server.log.flush()
        try:
            self.send_response(status)
            for name, value in fields:
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            # A browser that no longer wants it (its page closed).
            self.close_connection = True

    def do_GET(self):
        root = self.server.root
        path, _, query = self.path.partition("?")
        name = urllib.parse.unquote(path).lstrip("/")
        if ".." in name.split("/"):
            return self.answer(404, [], b"", "")
        if os.path.isdir(os.path.join(root, name)):
            if not path.endswith("/"):
                location = "http://%s%s/" % (self.headers["Host"], path)
                if query:
                    location += "?" + query
                return self.answer(301, [("Location", location)], b"", location)
            name = os.path.join(name, "index.html")
        served = None
        if query:
            served = saved(root, "%s?%s" % (name, urllib.parse.unquote(query)))
        served = served or saved(root, name)
        if served is None:
            return self.answer(404, [], b"", "")
        with open(os.path.join(root, served), "rb") as f:
            body = f.read()
        # By the path's extension; a script's that has none (`search?q=x`),
        # by its saved page's (`search?q=x.html`).
        media_type = (SITE_TYPES.get(os.path.splitext(name)[1])
                      or SITE_TYPES.get(os.path.splitext(served)[1], "application/octet-stream"))
        self.answer(200, [("Content-Type", media_type)], body, served)


def saved(root, name):
    """The file of `name` under `root`, or else the one wget's
    `--adjust-extension` saves it as (`.html` or `.css` after it); None."""
    for candidate in (name, name + ".html", name + ".css"):
        if os.path.isfile(os.path.join(root, candidate)):
            return candidate
    return None


class HostHandler(http.server.BaseHTTPRequestHandler):
    """A directory served by a host's rules, as src/url/host.rs states them
    (`--check-links --host`), with nothing else: the target's path, its
    escapes undone (a bad escape, an escaped `/` or NUL: 404), its query
    ignored, names matched as they are, names a file; a directory that
    holds a file, its `index.html` (asked without its slash: a 301 to it),
    or nothing; and on `github-pages`, a path without a trailing slash that
    is no file, its `.html` file before a directory of its name (on
    `netlify` with the slash too, a 301 to the name without it; on
    `cloudflare-pages` with the slash where no index answers); on
    `gitlab-pages`, a directory first, its index or nothing, and any other
    path not ending in `.html` its `.html` file, slash or not, served at
    the path as asked. Anything else is a 404.

    Every answer forbids scripts (`Content-Security-Policy: script-src
    'none'`): a copy of a real page runs none of its own, written for
    another site, while a browser keeps scripting on, as its users do, and
    so reads `<noscript>` as text."""

    protocol_version = "HTTP/1.1"
    server_version = "htmlabs-test"
    sys_version = ""

    def log_message(self, *args):
        pass

    def answer(self, status, fields, body):
        fields = fields + [("Content-Security-Policy", "script-src 'none'")]
        try:
            self.send_response(status)
            for name, value in fields:
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def is_file(self, path):
        """Whether `path` (bytes, under the root, no leading `/`) is a file:
        every segment a name, none empty, `.` or `..`."""
        segments = path.split(b"/")
        if any(s in (b"", b".", b"..") for s in segments):
            return False
        return os.path.isfile(os.path.join(self.server.root, path))

    def is_directory(self, path):
        """Whether `path` is a directory that holds a file, at any depth."""
        segments = path.split(b"/")
        if any(s in (b"", b".", b"..") for s in segments):
            return False
        full = os.path.join(self.server.root, path)
        return os.path.isdir(full) and any(files for _, _, files in os.walk(full))

    def serves(self, path):
        """host.rs's `Host::serves`: the file `path` reaches, or None."""
        bare = path[:-1] if path.endswith(b"/") else path
        slash = len(bare) < len(path)
        if not slash and path and self.is_file(path):
            return path
        if self.server.host == "gitlab-pages":
            # gitlab-pages's `tryFile`: a directory has its index or
            # nothing; a path that is not one, and does not end in `.html`,
            # its `.html` file, slash or not.
            if not bare or os.path.isdir(os.path.join(self.server.root, bare)):
                index = bare + b"/index.html" if bare else b"index.html"
                return index if self.is_file(index) else None
            if not path.endswith(b".html") and bare and self.is_file(bare + b".html"):
                return bare + b".html"
            return None
        # The name's `.html` file before a directory of the name: on GitHub
        # Pages without the slash, on Netlify with it too (redirected to
        # the name without it).
        host = self.server.host
        html_first = {"plain": False, "netlify": True}.get(host, not slash)
        html = bare + b".html" if bare and self.is_file(bare + b".html") else None
        if html_first and html:
            return html
        index = bare + b"/index.html" if bare else b"index.html"
        if (not bare or self.is_directory(bare)) and self.is_file(index):
            return index
        # Cloudflare Pages: `/file/` is redirected to `/file`.
        return html if host == "cloudflare-pages" and slash else None

    def do_GET(self):
        target, _, query = self.path.partition("?")
        path = unescaped(target[1:]) if target.startswith("/") else None
        served = None if path is None else self.serves(path)
        here = "http://%s" % self.headers["Host"]
        if self.server.host in ("netlify", "cloudflare-pages"):
            # The first rule that matches, over what no file answers or,
            # forced (every rule of Cloudflare's), over any.
            # Read at each request: the test writes the site after the
            # server has started (its files name the server's port).
            if self.server.host == "netlify":
                answer = NetlifyRules(self.server.root).answer(target, query)
            else:
                answer = CloudflareRules(self.server.root).answer(target)
            if answer is not None and (answer[2] or served is None):
                return self.redirected(here + self.path, *answer)
        if self.server.host == "gitlab-pages" and served is None and path is not None:
            # Its rules over what no file answers, matched on the path
            # decoded.
            answer = GitlabRules(self.server.root).answer("/" + path.decode("utf-8", "replace"))
            if answer is not None:
                to, status = answer
                if status != 200:
                    return self.answer(status, [("Location", here + to)], b"")
                rewritten = unescaped(to[1:])
                served = None if rewritten is None else self.serves(rewritten)
                if served is None:
                    return self.answer(404, [], b"")
                return self.file(served, 200)
        if served is None:
            return self.answer(404, [], b"")
        bare = path[:-1] if path.endswith(b"/") else path
        # A directory's index is served at its slash, a page at its name.
        index = served == bare + b"/index.html"
        if bare and not path.endswith(b"/") and index:
            location = "%s%s/" % (here, target)
            return self.answer(301, [("Location", location)], b"")
        # GitLab Pages serves `about.html` at `/about/` as it is.
        if path.endswith(b"/") and bare and not index and self.server.host != "gitlab-pages":
            return self.answer(301, [("Location", here + target[:-1])], b"")
        self.file(served, 200)

    def file(self, served, status):
        with open(os.path.join(self.server.root, served), "rb") as f:
            body = f.read()
        media_type = SITE_TYPES.get(os.path.splitext(served)[1].decode(), "application/octet-stream")
        self.answer(status, [("Content-Type", media_type)], body)

    def redirected(self, url, to, status, force):
        """A Netlify rule's answer: a redirect to `to` (3xx), the file at
        `to` served here (200, a rewrite), or `status` with the file at
        `to` as its body (404: a page that is not there)."""
        to = urllib.parse.urljoin(url, to)
        if 300 <= status < 400:
            return self.answer(status, [("Location", to)], b"")
        parts = urllib.parse.urlsplit(to)
        origin = urllib.parse.urlsplit(url)
        path = unescaped(parts.path[1:]) if parts.netloc == origin.netloc else None
        served = None if path is None else self.serves(path)
        if status == 200 and served is not None:
            return self.file(served, 200)
        if status == 200 or served is None:
            return self.answer(404, [], b"")
        self.file(served, status)


class NetlifyRules:
    """The redirect rules Netlify follows for the site in `root`, as its
    documentation states them: the lines of `_redirects` in the published
    directory (`FROM [KEY=VALUE...] TO [STATUS[!]] [CONDITIONS]`), then the
    `[[redirects]]` tables of the `netlify.toml` nearest at or above it
    whose `[build]` publishes it (`publish`, under `base`). A path matches
    as it is written (escaped, case counts), a trailing slash aside;
    `:name` is one segment (or a query's value), a last `*` the rest of
    the path (`:splat`). Rules for some visitors (conditions) or another
    domain are not taken; the status is 301 when not given."""

    def __init__(self, root):
        self.rules = []
        redirects = os.path.join(root, b"_redirects")
        if os.path.isfile(redirects):
            with open(redirects, "rb") as f:
                for line in f.read().decode("utf-8", "replace").splitlines():
                    self.line(line)
        site = os.path.realpath(root)
        for directory in [site] + list(parents(site)):
            config = os.path.join(directory, b"netlify.toml")
            if os.path.isfile(config):
                with open(config, "rb") as f:
                    table = tomllib.load(f)
                build = table.get("build", {})
                base = os.path.join(directory, os.fsencode(build.get("base", "")))
                published = os.path.realpath(os.path.join(base, os.fsencode(build.get("publish", ""))))
                if published == site:
                    for rule in table.get("redirects", []):
                        if rule.get("conditions"):
                            continue
                        self.add(rule["from"], list(rule.get("query", {}).items()), rule["to"],
                                 rule.get("status", 301), rule.get("force", False))
                break

    def line(self, line):
        words = line.split()
        if not words or words[0].startswith("#"):
            return
        query, i = [], 1
        while i < len(words) and not words[i].startswith("/") and "://" not in words[i]:
            if "=" not in words[i]:
                return
            query.append(tuple(words[i].split("=", 1)))
            i += 1
        if i == len(words):
            return
        to, status, force = words[i], 301, False
        i += 1
        if i < len(words) and words[i].rstrip("!").isdigit():
            status, force = int(words[i].rstrip("!")), words[i].endswith("!")
            i += 1
        if i == len(words):
            self.add(words[0], query, to, status, force)

    def add(self, source, query, to, status, force):
        if source.startswith("/"):
            segments = [s for s in source.strip("/").split("/") if s]
            splat = bool(segments) and segments[-1] == "*"
            self.rules.append((segments[:-1] if splat else segments, splat, query, to, status, force))

    def answer(self, path, query):
        """The first rule's answer for `path` (as asked, escaped) and
        `query`: (to, status, force), or None."""
        pairs = [p.split("=", 1) if "=" in p else [p, ""] for p in query.split("&") if p]
        given = [s for s in path.strip("/").split("/") if s]
        for segments, splat, conditions, to, status, force in self.rules:
            if len(given) < len(segments) or (not splat and len(given) != len(segments)):
                continue
            bound = {}
            matched = True
            for segment, value in zip(segments, given):
                if segment.startswith(":"):
                    bound[segment[1:]] = value
                elif segment != value:
                    matched = False
            for key, wanted in conditions:
                values = [v for k, v in pairs if k == key]
                if not values:
                    matched = False
                elif wanted.startswith(":"):
                    bound[wanted[1:]] = values[0]
                elif wanted != values[0]:
                    matched = False
            if not matched:
                continue
            to = to.replace(":splat", "/".join(given[len(segments):]))
            for name in sorted(bound, key=len, reverse=True):
                to = to.replace(":" + name, bound[name])
            return to, status, force
        return None


class CloudflareRules:
    """The redirect rules Cloudflare Pages follows for the site in `root`,
    as workers-sdk's pages-shared reads `_redirects` (parseRedirects,
    createMetadataObject) and its asset server matches them
    (generateRulesMatcher): lines of 2 or 3 words and at most 2000
    characters, 302 when not given, 200/301/302/303/307/308; `FROM` a
    path, read as a URL's path is; a rule with neither `*` nor `:name`,
    above any with one, is static (2000 at most, each the path exactly);
    the others are dynamic (100 at most: the 101st ends the file), each a
    regex of the path, `*` `(?P<splat>.*)` and `:name` `(?P<name>[^/]+)`,
    put in as Cloudflare puts them in (a regex that does not compile is
    no rule); a second rule for a `FROM` is left out. Static rules answer
    first; `TO`'s `:name`s are filled in, in the groups' order. Every rule
    is taken over a file."""

    NAME = r":([A-Za-z]\w*)"

    def __init__(self, root):
        self.static, self.dynamic = {}, []
        redirects = os.path.join(root, b"_redirects")
        if not os.path.isfile(redirects):
            return
        with open(redirects, "rb") as f:
            lines = f.read().decode("utf-8", "replace").split("\n")
        seen, statics, dynamics, static_allowed = set(), 0, 0, True
        for line in lines:
            line = line.strip()
            if not line or line.startswith("#") or len(line.encode("utf-16-le")) // 2 > 2000:
                continue
            words = line.split()
            if len(words) not in (2, 3) or not words[0].startswith("/"):
                continue
            source = self.pathname(words[0])
            if static_allowed and "*" not in source and not re.search(self.NAME, source):
                statics += 1
                if statics > 2000:
                    continue
            else:
                static_allowed = False
                dynamics += 1
                if dynamics > 100:
                    break
            status = words[2] if len(words) == 3 else "302"
            if not status.isdigit() or int(status) not in (200, 301, 302, 303, 307, 308):
                continue
            if source in seen:
                continue
            seen.add(source)
            if static_allowed:
                self.static[source] = (words[1], int(status))
                continue
            pattern = "(?P<splat>.*)".join(re.escape(part) for part in source.split("*"))
            for name in re.findall(self.NAME, source):
                pattern = pattern.replace(":" + name, "(?P<%s>[^/]+)" % name)
            try:
                self.dynamic.append((re.compile("^" + pattern + "$"), words[1], int(status)))
            except re.error:
                pass

    @staticmethod
    def pathname(source):
        """`source` as a URL's path: its query and fragment dropped, its dot
        segments removed, what a path cannot hold escaped."""
        path = re.split(r"[?#]", source)[0]
        path = urllib.parse.urlsplit(urllib.parse.urljoin("http://h/", path)).path
        return urllib.parse.quote(path, safe="/%!$&'()*+,;=:@[]^|~\\")

    def answer(self, path):
        """(to, status, True) of the rule that answers `path` (as asked),
        or None."""
        if path in self.static:
            return self.static[path] + (True,)
        for regex, to, status in self.dynamic:
            found = regex.match(path)
            if found:
                for name, value in found.groupdict().items():
                    to = to.replace(":" + name, value)
                return to, status, True
        return None


class GitlabRules:
    """The redirect rules GitLab Pages follows for the site in `root`, as
    gitlab-pages reads `_redirects` (internal/redirects, and the parser of
    github.com/tj/go-redirects it uses): `FROM TO [STATUS]`, 301 when not
    given; a line of one word or a third word that is no number, or a file
    of over 64 KiB, leaves no rule at all. Of the first 1000 rules, those
    with paths from `/` (no host, 25 slashes at most), 200, 301 or 302, no
    `!` and no fourth word are tried in order: `FROM` equal to the decoded
    path (a trailing slash aside) when `TO` has nothing to fill in, else
    `FROM` as a pattern in any case (`*` the rest, `:name` a segment,
    slashes doubled or trailing). The answer is `TO`'s path, its `:name`s
    filled in, its runs of slashes one."""

    def __init__(self, root):
        self.rules = []
        redirects = os.path.join(root, b"_redirects")
        if not os.path.isfile(redirects) or os.path.getsize(redirects) > 64 * 1024:
            return
        with open(redirects, "rb") as f:
            text = f.read().decode("utf-8", "replace")
        rules = []
        for line in text.splitlines():
            words = line.split()
            if not words or words[0].startswith("#"):
                continue
            if len(words) == 1:
                return
            status, ok = 301, True
            if len(words) > 2:
                try:
                    status = int(words[2].replace("!", ""))
                except ValueError:
                    return
                ok = "!" not in words[2] and len(words) == 3
            ok = ok and status in (200, 301, 302) and all(self.valid(w) for w in words[:2])
            rules.append((words[0], words[1], status) if ok else None)
        self.rules = [rule for rule in rules[:1000] if rule]

    @staticmethod
    def valid(url):
        path = re.split(r"[?#]", url)[0]
        return (path.startswith("/") and not path.startswith("//") and path.count("/") <= 25
                and not re.search(r"%(?![0-9a-fA-F]{2})", path))

    def answer(self, path):
        """(to, status) of the first rule that matches `path`, or None."""
        for source, to, status in self.rules:
            templated = re.search(r"(?i)\*|:[a-z]+", to)
            slashed = [(s[:-1] if s.endswith("/") else s) + "/" for s in (source, path)]
            if not templated and slashed[0] == slashed[1]:
                return to.split("?")[0].split("#")[0], status
            pattern = "(?i)^"
            for segment in [s for s in source.split("/") if s]:
                if segment == "*":
                    pattern += "/*(?P<splat>.*)/*"
                elif re.fullmatch(r"(?i):[a-z]+", segment):
                    pattern += "/+(?P<%s>[^/]+)" % segment[1:]
                else:
                    pattern += "/+" + re.escape(segment)
            try:
                found = re.match(pattern + "/*$", path)
            except re.error:
                continue
            if found is None:
                continue
            groups = found.groupdict()
            filled = re.sub(r"(?i):([a-z]+)",
                            lambda m: urllib.parse.quote(groups.get(m.group(1)) or "", safe="/"), to)
            filled = re.sub("//+", "/", filled)
            return filled.split("?")[0].split("#")[0], status
        return None


def parents(path):
    """The directories above `path`, nearest first."""
    while True:
        parent = os.path.dirname(path)
        if parent == path:
            return
        path = parent
        yield path


def unescaped(path):
    """`path` with its escapes undone, as bytes; None for a bad escape
    (`%` not before two hex digits), an escaped `/` or NUL."""
    out = bytearray()
    # http.server reads the request line as Latin-1: its bytes back.
    data = path.encode("latin-1")
    i = 0
    while i < len(data):
        if data[i] == ord("%"):
            hex_digits = data[i + 1:i + 3]
            if len(hex_digits) < 2 or not all(chr(c) in "0123456789abcdefABCDEF" for c in hex_digits):
                return None
            byte = int(hex_digits, 16)
            if byte in (ord("/"), 0):
                return None
            out.append(byte)
            i += 3
        else:
            out.append(data[i])
            i += 1
    return bytes(out)


def main():
    if sys.argv[1:2] == ["--site"] and sys.argv[3:4] == ["--host"]:
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), HostHandler)
        server.root = os.fsencode(sys.argv[2])
        server.host = sys.argv[4]
        if server.host not in ("plain", "github-pages", "netlify", "cloudflare-pages", "gitlab-pages"):
            sys.exit("http_server.py: --host plain, github-pages, netlify, cloudflare-pages or "
                     "gitlab-pages, not " + server.host)
    elif sys.argv[1:2] == ["--site"]:
        root, log = sys.argv[2], sys.argv[3:4]
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), SiteHandler)
        server.root = root
        server.log = open(log[0], "w") if log else None
        server.log_lock = threading.Lock()
    else:
        # A port of the caller's (docs/http.md's captures), or any free one.
        port = int(sys.argv[1]) if len(sys.argv) > 1 else 0
        server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
    print(server.server_address[1], flush=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    sys.stdin.read()
    server.shutdown()


if __name__ == "__main__":
    main()
