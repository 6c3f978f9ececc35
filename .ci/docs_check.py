"""Checks the built documentation site (run by .ci/docs):

1. links: every relative href/src of every page points to a file of the site,
   and every #fragment to an id in that file (external links are listed, not
   fetched: CI has no network beyond the package registries);
2. rendering: headless Chromium (Debian's package) loads every page; its DOM
   must hold the page's main article with the page's own title, and the
   browser must report no failed resource load;
3. screenshots of the front page and one API page, for the record.

    python3 .ci/docs_check.py build/docs/html build/docs/screenshots
"""
import html.parser
import os
import subprocess
import sys
import urllib.parse


class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids, self.links, self.title = set(), [], ""
        self._in_title = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.add(a["id"])
        if tag == "a" and "name" in a:
            self.ids.add(a["name"])
        for key in ("href", "src"):
            if key in a and a[key] is not None and tag in ("a", "img", "link", "script"):
                self.links.append((tag, a[key]))
        self._in_title = tag == "title" and not self.title  # the page's, not an SVG's

    def handle_endtag(self, tag):
        self._in_title = False

    def handle_data(self, data):
        if self._in_title:
            self.title += data


def parse(path):
    p = Page()
    with open(path, encoding="utf-8") as f:
        p.feed(f.read())
    return p


def check_links(root):
    pages = {}
    for d, _dirs, files in os.walk(root):
        if "_sources" in d:
            continue
        for f in files:
            if f.endswith(".html"):
                pages[os.path.join(d, f)] = parse(os.path.join(d, f))
    problems, external = [], set()
    for path, page in sorted(pages.items()):
        for tag, link in page.links:
            u = urllib.parse.urlsplit(link)
            if u.scheme in ("http", "https", "mailto"):
                external.add(link)
                continue
            if u.scheme:
                problems.append(f"{path}: unexpected link scheme {link}")
                continue
            target = path if not u.path else os.path.normpath(
                os.path.join(os.path.dirname(path), urllib.parse.unquote(u.path)))
            if not os.path.exists(target):
                problems.append(f"{os.path.relpath(path, root)}: <{tag}> {link}: no such file")
                continue
            if u.fragment and target.endswith(".html"):
                ids = pages[target].ids if target in pages else parse(target).ids
                if urllib.parse.unquote(u.fragment) not in ids:
                    problems.append(f"{os.path.relpath(path, root)}: {link}: no id "
                                    f"'{u.fragment}' in {os.path.relpath(target, root)}")
    return pages, problems, sorted(external)


def chromium(*args):
    return subprocess.run(["chromium", "--headless", "--no-sandbox", "--disable-gpu",
                           "--no-first-run", "--disable-dev-shm-usage",
                           "--enable-logging=stderr", "--v=0", *args],
                          capture_output=True, text=True, timeout=120)


def check_render(root, pages):
    problems = []
    for path, page in sorted(pages.items()):
        rel = os.path.relpath(path, root)
        r = chromium("--dump-dom", "file://" + os.path.abspath(path))
        dom = r.stdout
        heading = page.title.split(" - ")[0].strip()
        if r.returncode != 0 or "<article" not in dom:
            problems.append(f"{rel}: did not render (exit {r.returncode})")
        elif heading and heading.replace("&", "&amp;") not in dom:
            problems.append(f"{rel}: rendered page lacks its title '{heading}'")
        for line in r.stderr.splitlines():
            if "net::ERR_FILE_NOT_FOUND" in line or "Failed to load resource" in line:
                problems.append(f"{rel}: {line.strip()}")
    return problems


def main(root, shots):
    pages, problems, external = check_links(root)
    print(f"{len(pages)} pages, {sum(len(p.links) for p in pages.values())} links, "
          f"{len(external)} external (not fetched)")
    problems += check_render(root, pages)
    os.makedirs(shots, exist_ok=True)
    for name in ("index", "api"):
        out = os.path.join(shots, f"{name}.png")
        r = chromium("--window-size=1280,1000", "--hide-scrollbars", f"--screenshot={out}",
                     "file://" + os.path.abspath(os.path.join(root, f"{name}.html")))
        if r.returncode != 0 or not os.path.exists(out) or os.path.getsize(out) < 10000:
            problems.append(f"screenshot of {name}.html failed: {r.stderr[-300:]}")
        else:
            print(f"screenshot {out}")
    for p in problems:
        print("PROBLEM", p)
    print("documentation site: " + ("OK" if not problems else f"{len(problems)} problems"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
