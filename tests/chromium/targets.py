"""Loads pages in Debian's Chromium and reads back where their links go.

Driven by tests/judges/chromium.rs: `python3 targets.py CHROMIUM LOADS OUT`. LOADS is
a JSON list of {"key", "url", "file"}: the bytes of `file` are served as the
document at `url` from memory. Nothing reaches the network: every other
request is answered with an empty body (a navigation of the top frame away
from the page, a meta refresh, with 204 No Content, which leaves the page
where it is), and scripts are off. A load without a "file" is of a page a
local server serves (`http://127.0.0.1:PORT/…`, the test's): the page and
what it asks of that origin (its frames, style sheets, images) come from
the server, every other request is answered as above. With a "server"
(`127.0.0.1:PORT`), the page's URL is of a site's own host, which Chromium
resolves to that server (`--host-resolver-rules`). OUT gets a
JSON object, key -> {"base", "charset", "links", "candidates", "requests"}
or {"error"}: `links` lists, in document order, every element's URL
attributes (by the HTML standard, ATTRIBUTES) as [tag, attribute, value,
target], the target being the URL Chromium makes of the value in that
document (its base URL and its encoding: the value set as the href of a new
<a> in it, read back; a <base>'s own, its href); `candidates` each URL of
every `srcset` (of <img> and <source>, split as the HTML standard splits
it) the same way, [tag, "srcset", url, target]; `requests` the URLs the
page asked for (of the kinds in FETCHES), sorted, the document's own
navigation left out.
"""
import asyncio
import json
import sys

from playwright.async_api import async_playwright

# The attributes whose value is one URL, by element, from the HTML
# standard's index of attributes (and the obsolete ones it still lists); in
# SVG, href and xlink:href on any element.
HTML_URL_ATTRIBUTES = {
    "a": ["href"], "area": ["href"], "base": ["href"], "link": ["href"],
    "img": ["src", "longdesc"], "iframe": ["src", "longdesc"], "frame": ["src", "longdesc"],
    "embed": ["src"], "script": ["src"], "input": ["src", "formaction"],
    "button": ["formaction"], "form": ["action"], "video": ["src", "poster"],
    "audio": ["src"], "source": ["src"], "track": ["src"], "blockquote": ["cite"],
    "q": ["cite"], "del": ["cite"], "ins": ["cite"], "object": ["data", "codebase"],
    "applet": ["codebase"], "body": ["background"], "table": ["background"],
    "thead": ["background"], "tbody": ["background"], "tfoot": ["background"],
    "tr": ["background"], "td": ["background"], "th": ["background"],
    "html": ["manifest"], "head": ["profile"],
}
ATTRIBUTES = {"html": HTML_URL_ATTRIBUTES, "svg": ["href", "xlink:href"]}

READ = """attributes => {
  // An HTML <a> in any document (an SVG one's createElement makes no <a>).
  const a = document.createElementNS('http://www.w3.org/1999/xhtml', 'a');
  const target = value => { a.setAttribute('href', value); return a.href; };
  // The URLs of a srcset, by the HTML standard's parsing: a URL runs to
  // whitespace (trailing commas off), its descriptors to a comma outside
  // parentheses.
  const urls = srcset => {
    const found = [];
    let i = 0;
    for (;;) {
      while (i < srcset.length && /[\\s,]/.test(srcset[i])) i++;
      if (i >= srcset.length) return found;
      const start = i;
      while (i < srcset.length && !/\\s/.test(srcset[i])) i++;
      let url = srcset.slice(start, i);
      if (url.endsWith(',')) {
        url = url.replace(/,+$/, '');
      } else {
        let depth = 0;
        for (; i < srcset.length; i++) {
          const c = srcset[i];
          if (c === '(') depth++;
          else if (c === ')') depth--;
          else if (c === ',' && depth <= 0) { i++; break; }
        }
      }
      found.push(url);
    }
  };
  const candidates = [];
  for (const el of document.querySelectorAll('img[srcset], source[srcset]')) {
    for (const url of urls(el.getAttribute('srcset'))) {
      candidates.push([el.localName, 'srcset', url, target(url)]);
    }
  }
  const links = [];
  for (const el of document.querySelectorAll('*')) {
    const svg = el.namespaceURI === 'http://www.w3.org/2000/svg';
    const names = svg ? attributes.svg : (attributes.html[el.localName] || []);
    for (const name of names) {
      const value = el.getAttribute(name);
      if (value === null) continue;
      // A <base>'s own href is read against the document's URL, not itself.
      const url = el.localName === 'base' && !svg ? el.href : target(value);
      links.push([el.localName, name, value, url]);
    }
  }
  return {base: document.baseURI, charset: document.characterSet, links, candidates};
}"""


# What a page fetches, by Playwright's resource types: frames, style sheets,
# images, media and text tracks. Left out are the requests that depend on
# more than where a link goes: favicons and `<use>` sprites (fetched or not
# by origin and icon choice: "other"), fonts (each fallback of a `src:` list
# is fetched once the one before fails: a matter of timing), and scripts,
# which are off.
FETCHES = {"document", "stylesheet", "image", "media", "texttrack"}

# Pages loaded at once, each in its own tab.
TABS = 4


async def main():
    chromium, loads_file, out_file = sys.argv[1:4]
    with open(loads_file) as f:
        loads = json.load(f)
    results = {}
    args = ["--no-sandbox", "--disable-gpu"]
    # Each site's host, resolved to the local server that serves it.
    rules = sorted({"MAP %s %s" % (host(load["url"]), load["server"])
                    for load in loads if "server" in load})
    if rules:
        args.append("--host-resolver-rules=" + ",".join(rules))
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=chromium, headless=True, args=args)
        # A page's Content-Security-Policy (`default-src 'self'`) would block
        # its own resources once moved to another host: bypassed.
        context = await browser.new_context(java_script_enabled=False, bypass_csp=True)
        tabs = asyncio.Semaphore(TABS)

        async def run(load):
            async with tabs:
                results[load["key"]] = await one(context, load)

        await asyncio.gather(*(run(load) for load in loads))
        await browser.close()
    with open(out_file, "w") as f:
        json.dump(results, f)


def origin(url):
    """A URL's scheme, host and port: `http://127.0.0.1:PORT`."""
    scheme, _, rest = url.partition("://")
    return scheme + "://" + rest.split("/", 1)[0]


def host(url):
    """A URL's host, without its port: `127.0.0.1`."""
    return origin(url).partition("://")[2].rsplit(":", 1)[0]


async def one(context, load):
    # None: the page is the local server's (`continue_` to it).
    body = None
    if "file" in load:
        with open(load["file"], "rb") as f:
            body = f.read()
    server = origin(load["url"])
    if body is None and "server" not in load and host(load["url"]) not in ("127.0.0.1", "localhost"):
        raise ValueError("a page without a file must be a local server's: " + load["url"])
    page = await context.new_page()
    requests = set()
    state = {"served": False}

    async def route(r):
        request = r.request
        top = request.is_navigation_request() and request.frame.parent_frame is None
        if top and not state["served"]:
            state["served"] = True
            if body is None:
                await r.continue_()
            else:
                # No charset: the document's bytes say which, as for a file.
                await r.fulfill(status=200, headers={"content-type": "text/html"}, body=body)
        elif top:
            # A navigation away (a meta refresh) answered 204 No Content is
            # no navigation at all (HTML standard: the document stays), where
            # an aborted one could put Chromium's error page in its place
            # before the reading.
            await r.fulfill(status=204, body=b"")
        else:
            if request.resource_type in FETCHES:
                requests.add(request.url)
            if body is None and origin(request.url) == server:
                await r.continue_()
            else:
                await r.fulfill(status=200, body=b"")

    await page.route("**/*", route)
    return await visit(page, load["url"], requests)


async def visit(page, url, requests):
    """What READ reads of `page` once it has loaded `url`, or {"error"},
    with the `requests` it made ("requests"); the page closed."""
    try:
        await page.goto(url, wait_until="load", timeout=60_000)
        result = await read(page)
    except Exception as e:  # reported by the test, page by page
        result = {"error": str(e).splitlines()[0]}
    finally:
        await page.close()
    result["requests"] = sorted(requests)
    return result


async def read(page):
    """What READ reads of a loaded page. A meta refresh starts a navigation
    (aborted) that may take the first reading's context away: read again,
    after a pause (on a loaded machine the abort can come later than the
    next load state)."""
    for attempt in range(5):
        try:
            return await page.evaluate(READ, ATTRIBUTES)
        except Exception:
            if attempt == 4:
                raise
            await page.wait_for_timeout(250)
            await page.wait_for_load_state("load")


if __name__ == "__main__":
    asyncio.run(main())
