"""Serves a page and its stylesheets from local origins and loads them in
Debian's Chromium, to see where their images and fonts are fetched from.

Driven by tests/judges/chromium.rs: `python3 moved_css.py CHROMIUM LABEL...`. One
HTTP server (Python's http.server, on 127.0.0.1, each on a port of its own:
an origin each) is started a label, and their ports are printed as one JSON
line, {label: port}. Then one JSON line is read from standard input:
{"routes": {label: {target: {"file", "type"}}}, "loads": [{"key", "url"}]},
a target being a request's path and query. A server answers a target of its
routes with the file's bytes and its Content-Type, and any other with an
empty 200 (`Access-Control-Allow-Origin: *`, as a CDN's fonts are served,
so that a font is fetched alike from any origin, and fails alike to
decode). Each load is a page opened in a new browser context (nothing
cached from another load), waited for until its fonts are settled
(`document.fonts.ready`: a font's fallbacks are fetched one after another)
and the network is idle; what the servers were asked for meanwhile is its
answer. The answers are printed as one JSON line: {key: {"requests":
[[label, target], ...]}} in the order they came, or {key: {"error"}}.
"""
import asyncio
import http.server
import json
import sys
import threading

from playwright.async_api import async_playwright

LOG = []
LOCK = threading.Lock()


def handler(label, routes):
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def do_GET(self):
            with LOCK:
                LOG.append([label, self.path])
            route = routes.get(label, {}).get(self.path)
            if route is None:
                body, content_type = b"", "application/octet-stream"
            else:
                with open(route["file"], "rb") as f:
                    body = f.read()
                content_type = route["type"]
            self.send_response(200)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Access-Control-Allow-Origin", "*")
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(body)

    return Handler


async def load(browser, url):
    context = await browser.new_context()
    page = await context.new_page()
    try:
        await page.goto(url, wait_until="networkidle", timeout=60_000)
        await page.evaluate("document.fonts.ready.then(() => document.fonts.size)")
        await page.wait_for_load_state("networkidle")
        return None
    except Exception as e:  # reported by the test
        return str(e).splitlines()[0]
    finally:
        await context.close()


async def main():
    chromium, labels = sys.argv[1], sys.argv[2:]
    routes = {}
    servers = {}
    for label in labels:
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler(label, routes))
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers[label] = server
    print(json.dumps({label: s.server_address[1] for label, s in servers.items()}), flush=True)
    asked = json.loads(sys.stdin.readline())
    routes.update(asked["routes"])
    results = {}
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=chromium, headless=True,
                                          args=["--no-sandbox", "--disable-gpu"])
        for item in asked["loads"]:
            with LOCK:
                LOG.clear()
            error = await load(browser, item["url"])
            with LOCK:
                requests = list(LOG)
            results[item["key"]] = {"error": error} if error else {"requests": requests}
        await browser.close()
    for server in servers.values():
        server.shutdown()
    print(json.dumps(results), flush=True)


if __name__ == "__main__":
    asyncio.run(main())
