"""Opens pages from the disk in Debian's Chromium and reads back where their
links go: what a reader of a mirror made with `htmlabs --site --relative`
gets.

Driven by tests/judges/chromium.rs: `python3 from_disk.py CHROMIUM PAGES OUT`.
PAGES is a JSON list of absolute paths of pages; each is opened at its
`file:` URL, scripts off, and OUT gets a JSON object, path -> {"base",
"charset", "links", "candidates", "requests"} as targets.py reads them
(every element's URL attributes as [tag, attribute, value, target], the
target being the URL Chromium makes of the value; each `srcset` URL
likewise; the URLs the page asked for, of the kinds in FETCHES, `file:`
ones included), or {"error"}. Nothing reaches the network: a request of the
page's is answered with an empty body, a navigation away with 204 No Content.
Pages are opened TABS at a time, each in its own tab, as targets.py loads
them.
"""
import asyncio
import json
import pathlib
import sys

from playwright.async_api import async_playwright

from targets import FETCHES, TABS, visit


async def main():
    chromium, pages_file, out_file = sys.argv[1:4]
    with open(pages_file) as f:
        pages = json.load(f)
    results = {}
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=chromium, headless=True,
                                          args=["--no-sandbox", "--disable-gpu"])
        context = await browser.new_context(java_script_enabled=False)
        tabs = asyncio.Semaphore(TABS)

        async def run(path):
            async with tabs:
                results[path] = await one(context, path)

        await asyncio.gather(*(run(path) for path in pages))
        await browser.close()
    with open(out_file, "w") as f:
        json.dump(results, f)


async def one(context, path):
    page = await context.new_page()
    requests = set()

    def asked(request):
        top = request.is_navigation_request() and request.frame.parent_frame is None
        if request.resource_type in FETCHES and not top:
            requests.add(request.url)

    page.on("request", asked)

    async def route(r):
        request = r.request
        if request.is_navigation_request() and request.frame.parent_frame is None:
            # A navigation away (a meta refresh to the live site)
            # answered 204 No Content leaves the page where it is.
            await r.fulfill(status=204, body=b"")
        else:
            # Nothing reaches the network.
            await r.fulfill(status=200, body=b"")

    await page.route("http*://**/*", route)
    return await visit(page, pathlib.Path(path).as_uri(), requests)


if __name__ == "__main__":
    asyncio.run(main())
