"""Open every page of an HTML report (``pathlogic report`` / ``analyze --html``, ``optimize
--html``, ``run --html``) in headless Chromium: console errors, SVGs that do not render (empty
bounding box), broken local links, a page saying its explanations stopped, and in every CFG an
edge out of a ``cbr`` without its true/false label (issue #30); then click every link of the
index and every ``<summary>`` of the screenshot pages; save screenshots of the index and of one
function page.

    python -m benchmarks.report_pages runs/examples/html --shots runs/report-examples \
        --function-page f/1.html --out runs/report-examples.json

Needs Debian ``chromium`` and ``chromium-driver`` and ``selenium`` (PyPI).
"""
from __future__ import annotations

import argparse
import json
import shutil
import time
from pathlib import Path
from urllib.parse import unquote, urlparse

from benchmarks.common import command_line


def browser_available() -> str | None:
    """None when headless Chromium can be driven here, else what is missing."""
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install selenium)"
    if not (shutil.which("chromium") or shutil.which("chromium-browser")):
        return "chromium is not installed (Debian: apt-get install chromium)"
    if not shutil.which("chromedriver"):
        return "chromedriver is not installed (Debian: apt-get install chromium-driver)"
    return None


def _driver():
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service
    options = Options()
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1300,2400",
                "--disable-dev-shm-usage"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)


#: In the page: per CFG (an SVG dot drew from ``digraph cfg``) the edges out of a block whose
#: code ends in a ``cbr``, ``[from, to, label, "true"|"false"]`` (the side the target is on,
#: read from the ``cbr`` line of the node's hover text; report/graphs.py writes the titles).
CBR_EDGES_JS = r"""
const out = [];
for (const svg of document.querySelectorAll('svg')) {
  const g = svg.querySelector('g.graph > title');
  if (!g || g.textContent !== 'cfg') continue;
  const sides = {};
  for (const n of svg.querySelectorAll('g.node > title')) {
    const lines = n.textContent.split('\n');
    const name = lines[0].replace(/:$/, '');
    const last = lines[lines.length - 1].trim();
    const m = last.match(/^(?:\(\S+\)\s*)?cbr\s+[^,]+,\s*([^,\s]+),\s*([^,\s]+)$/);
    if (lines.length > 1 && m) sides[name] = {[m[1]]: 'true', [m[2]]: 'false'};
  }
  for (const e of svg.querySelectorAll('g.edge > title')) {
    const m = e.textContent.match(/^(.*?) -> (.*?)(?:: (.*))?$/s);
    if (m && sides[m[1]] && sides[m[1]][m[2]])
      out.push([m[1], m[2], m[3] || '', sides[m[1]][m[2]]]);
  }
}
return out;
"""


def check_pages(html_dir: str | Path, shots: str | Path | None = None,
                function_page: str = "f/0.html") -> dict:
    """Every ``*.html`` under ``html_dir`` loaded once. Returns ``{pages, svgs, cbr_edges,
    clicks, errors: [...], screenshots: [...]}``; an error names the page and what went wrong
    (``cbr_edges``: edges out of a ``cbr`` checked for their label; ``clicks``: links and
    summaries clicked)."""
    html_dir = Path(html_dir).resolve()
    pages = sorted(html_dir.rglob("*.html"))
    report = {"pages": len(pages), "svgs": 0, "cbr_edges": 0, "clicks": 0, "errors": [],
              "screenshots": []}
    driver = _driver()
    try:
        for page in pages:
            driver.get(page.as_uri())
            for entry in driver.get_log("browser"):
                report["errors"].append(f"{page.relative_to(html_dir)}: console "
                                        f"{entry.get('level')}: {entry.get('message')}")
            widths = driver.execute_script(
                "return Array.from(document.querySelectorAll('svg'))"
                ".map(s => { const b = s.getBBox(); return [b.width, b.height]; })")
            report["svgs"] += len(widths)
            for k, (w, h) in enumerate(widths):
                if not (w > 0 and h > 0):
                    report["errors"].append(f"{page.relative_to(html_dir)}: SVG {k} is empty")
            hrefs = driver.execute_script(
                "return Array.from(document.querySelectorAll('a[href]')).map(a => a.href)")
            for href in hrefs:
                url = urlparse(href)
                if url.scheme != "file":
                    report["errors"].append(f"{page.relative_to(html_dir)}: non-local link {href}")
                elif not Path(unquote(url.path)).is_file():
                    report["errors"].append(f"{page.relative_to(html_dir)}: broken link {href}")
            where = page.relative_to(html_dir)
            text = driver.execute_script("return document.body.innerText")
            if "explanations stopped" in text:
                report["errors"].append(f"{where}: says its explanations stopped")
            for a, b, label, side in driver.execute_script(CBR_EDGES_JS):
                report["cbr_edges"] += 1
                if not any(part.strip().startswith(side) for part in label.split(";")):
                    report["errors"].append(f"{where}: CFG edge {a} -> {b} out of a cbr is "
                                            f"labelled {label!r}, not {side}")
            if where.as_posix() in ("index.html", function_page):
                for summary in driver.find_elements("css selector", "summary"):
                    driver.execute_script("arguments[0].scrollIntoView()", summary)
                    summary.click()             # open the code listings
                    report["clicks"] += 1
                driver.execute_script("window.scrollTo(0, 0)")
            if shots is not None and page.relative_to(html_dir).as_posix() in (
                    "index.html", function_page):
                name = "index" if page.name == "index.html" else "function"
                target = Path(f"{shots}-{name}.png")
                target.parent.mkdir(parents=True, exist_ok=True)
                driver.save_screenshot(str(target))
                report["screenshots"].append(str(target))
        _click_index_links(driver, html_dir, report)
    finally:
        driver.quit()
    return report


def _click_index_links(driver, html_dir: Path, report: dict) -> None:
    """From the index, click each local link in turn: the page it opens loads without console
    errors."""
    index = (html_dir / "index.html").as_uri()
    driver.get(index)
    driver.get_log("browser")
    count = len(driver.find_elements("css selector", "a[href]"))
    for k in range(count):
        driver.get(index)
        link = driver.find_elements("css selector", "a[href]")[k]
        if not link.get_attribute("href").startswith("file:"):
            continue
        driver.execute_script("arguments[0].scrollIntoView()", link)
        link.click()
        report["clicks"] += 1
        for entry in driver.get_log("browser"):
            report["errors"].append(f"click from index to {driver.current_url}: console "
                                    f"{entry.get('level')}: {entry.get('message')}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("html_dir")
    ap.add_argument("--shots", help="screenshot path prefix (PREFIX-index.png, PREFIX-function.png)")
    ap.add_argument("--function-page", default="f/0.html")
    ap.add_argument("--out", help="write the result as JSON")
    args = ap.parse_args()
    missing = browser_available()
    if missing:
        print(f"report_pages: {missing}")
        return 2
    start = time.perf_counter()
    result = check_pages(args.html_dir, args.shots, args.function_page)
    result["seconds"] = round(time.perf_counter() - start, 2)
    result["html_dir"] = args.html_dir
    result["command"] = command_line("benchmarks.report_pages")
    text = json.dumps(result, indent=1)
    if args.out:
        Path(args.out).write_text(text + "\n")
    print(text)
    return 1 if result["errors"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
