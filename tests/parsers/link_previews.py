"""Reads podhost's pages as the sites that unfold links do, and prints what they read as JSON.

For each page URL given: pyoembed finds the page's oEmbed endpoint by discovery (the page's
`<link rel="alternate" type="application/json+oembed">`), asks it and checks the answer against
its `rich` type; extruct reads the page's Open Graph metadata and its schema.org JSON-LD.

Usage: python link_previews.py URL [URL ...]
Run by podhost-http/tests/link_previews.rs with the interpreter of .venv, where scripts/test
installs pyoembed and extruct (pinned there).
"""

import json
import sys
import urllib.request

import extruct
import pyoembed


def read(url: str) -> dict:
    embedded = pyoembed.oEmbed(url, maxwidth=480)
    with urllib.request.urlopen(url) as answer:
        html = answer.read().decode("utf-8")
    data = extruct.extract(html, base_url=url, syntaxes=["opengraph", "json-ld"], uniform=True)
    opengraph = data["opengraph"][0] if data["opengraph"] else {}
    return {
        "oembed": embedded,
        "opengraph": opengraph,
        "json_ld": data["json-ld"],
    }


def main() -> int:
    if len(sys.argv) < 2:
        print("usage: link_previews.py URL [URL ...]", file=sys.stderr)
        return 2
    json.dump({url: read(url) for url in sys.argv[1:]}, sys.stdout, ensure_ascii=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
