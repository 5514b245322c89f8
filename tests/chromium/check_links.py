"""Asks Chromium whether links of a served site work, for
tests/judges/link_check.rs: `python3 check_links.py CHROMIUM ASKED OUT`.

ASKED is a JSON object: "origin", the local server's
(`http://127.0.0.1:PORT`); "urls", URLs of that origin (no fragment);
"fragments", URLs of it with a fragment; "off_site", any URLs. OUT gets a
JSON object:

- "fetched": each of "urls" -> {"status", "url", "type"} (the status, URL
  and media type of the last response, redirects followed) or {"error"}:
  fetched by `fetch()` from a page of the origin, which asks as the browser
  asks for any link (the URL parsed by the URL Standard, redirects
  followed) and reads the answer whatever its type (a navigation to a file
  no browser shows would be a download);
- "fragments": each of "fragments" whose URL without its fragment was
  fetched with a 2xx status as `text/html` or `image/svg+xml` (an SVG
  file's elements are named by their ids) -> {"target", "url"} or
  {"error"}: the page is opened at that URL (a navigation, as a user
  following the link), and "target" is the element `:target` matches,
  the part of the page the browser found for the fragment ({"tag", "id",
  "name"}), or null, "quirks" whether the page is in quirks mode; the
  other fragments of the same URL are then navigated to in
  that page, as a click on `#x` does. Only the page itself is loaded (its
  frames, images and style sheets are answered empty: what a fragment
  names does not depend on them), and a navigation the page starts
  itself (a meta refresh) is answered 204 No Content, which leaves it
  where it is;
- "parsed": each of "off_site" -> the URL the URL Standard makes of it
  (`new URL()`), or null when it makes none.

Nothing reaches the network: every request to another origin is answered
empty. Scripts stay on, as for users (the server forbids the pages' own,
tests/http_server.py's HostHandler): `<noscript>` is text, as they read it.
"""
import asyncio
import json
import sys
from collections import defaultdict

from playwright.async_api import async_playwright

# Pages opened at once, each in its own tab.
TABS = 4

FETCH = """urls => Promise.all(urls.map(url =>
  fetch(url, {cache: 'no-store', redirect: 'follow'}).then(
    r => ({status: r.status, url: r.url, type: r.headers.get('content-type')}),
    e => ({error: String(e)}))))"""

TARGET = """() => {
  const t = document.querySelector(':target');
  return {
    target: t ? {tag: t.localName, id: t.id, name: t.getAttribute('name')} : null,
    quirks: document.compatMode === 'BackCompat',
    url: location.href,
  };
}"""

PARSE = """urls => urls.map(url => { try { return new URL(url).href; } catch (e) { return null; } })"""


def origin_of(url):
    scheme, _, rest = url.partition("://")
    return scheme + "://" + rest.split("/", 1)[0].split("?", 1)[0].split("#", 1)[0]


async def main():
    chromium, asked_file, out_file = sys.argv[1:4]
    with open(asked_file) as f:
        asked = json.load(f)
    origin = asked["origin"]
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=chromium, headless=True,
                                          args=["--no-sandbox", "--disable-gpu"])
        context = await browser.new_context()

        async def route(r):
            request = r.request
            if origin_of(request.url) != origin:
                await r.fulfill(status=200, body=b"")
            elif request.resource_type == "fetch":
                await r.continue_()
            elif request.is_navigation_request() and request.frame.parent_frame is None:
                page = request.frame.page
                if getattr(page, "expected", False) or request.redirected_from is not None:
                    page.expected = False
                    await r.continue_()
                else:
                    await r.fulfill(status=204, body=b"")
            else:
                await r.fulfill(status=200, body=b"")

        await context.route("**/*", route)

        async def goto(page, url):
            # The navigation asked for (and its redirects), none the page
            # starts after it; a fragment of the page itself asks for none.
            page.expected = True
            try:
                return await page.goto(url, wait_until="load", timeout=60_000)
            finally:
                page.expected = False

        # A page of the origin to fetch from (its status does not matter).
        home = await context.new_page()
        await goto(home, origin + "/")
        answers = await home.evaluate(FETCH, asked["urls"])
        fetched = dict(zip(asked["urls"], answers))
        parsed = dict(zip(asked["off_site"], await home.evaluate(PARSE, asked["off_site"])))
        await home.close()

        # The fragments of each page that loaded as HTML or SVG, by its URL.
        by_page = defaultdict(list)
        for url in asked["fragments"]:
            page_url = url.split("#", 1)[0]
            answer = fetched.get(page_url, {})
            kind = (answer.get("type") or "").split(";")[0].strip()
            if 200 <= answer.get("status", 0) < 300 and kind in ("text/html", "image/svg+xml"):
                by_page[page_url].append(url)
        fragments = {}
        tabs = asyncio.Semaphore(TABS)

        async def judge(urls):
            async with tabs:
                page = await context.new_page()
                try:
                    for url in urls:
                        try:
                            await goto(page, url)
                            fragments[url] = await page.evaluate(TARGET)
                        except Exception as e:  # told by the test, link by link
                            fragments[url] = {"error": str(e).splitlines()[0]}
                finally:
                    await page.close()

        await asyncio.gather(*(judge(urls) for urls in by_page.values()))
        await browser.close()
    with open(out_file, "w") as f:
        json.dump({"fetched": fetched, "fragments": fragments, "parsed": parsed}, f)


if __name__ == "__main__":
    asyncio.run(main())
