"""Opens pages from the disk in Debian's Chromium and reads back where their
links go: what a reader of a mirror made with `htmlabs --site --relative`
gets.

Driven by tests/judges/chromium.rs: `python3 from_disk.py CHROMIUM PAGES OUT`.
PAGES is a JSON list of absolute paths of pages; each is opened at its
`file:` URL, scripts off, and OUT gets a JSON object, path -> {"base",
"charset", "links"} as targets.py reads them (every element's URL attributes
as [tag, attribute, value, target], the target being the URL Chromium makes
of the value), or {"error"}.
"""
import asyncio
import json
import pathlib
import sys

from playwright.async_api import async_playwright

from targets import ATTRIBUTES, READ


async def main():
    chromium, pages_file, out_file = sys.argv[1:4]
    with open(pages_file) as f:
        pages = json.load(f)
    results = {}
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=chromium, headless=True,
                                          args=["--no-sandbox", "--disable-gpu"])
        context = await browser.new_context(java_script_enabled=False)
        for path in pages:
            page = await context.new_page()
            try:
                await page.goto(pathlib.Path(path).as_uri(), wait_until="load", timeout=60_000)
                results[path] = await page.evaluate(READ, ATTRIBUTES)
            except Exception as e:  # reported by the test, page by page
                results[path] = {"error": str(e).splitlines()[0]}
            finally:
                await page.close()
        await browser.close()
    with open(out_file, "w") as f:
        json.dump(results, f)


if __name__ == "__main__":
    asyncio.run(main())
