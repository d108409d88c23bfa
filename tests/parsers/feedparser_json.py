"""Parses an RSS file with feedparser and prints the result as JSON on stdout.

Usage: python feedparser_json.py FEED.xml
Run by podhost-core/tests/feed_parsers.rs with the interpreter of .venv, where scripts/test
installs feedparser.
"""

import json
import sys

import feedparser


def main() -> int:
    if len(sys.argv) != 2:
        print("usage: feedparser_json.py FEED.xml", file=sys.stderr)
        return 2
    with open(sys.argv[1], "rb") as f:
        # The text as the feed carries it: no HTML sanitizing (which drops <script> and
        # rewrites markup) and no resolving of relative links, which are apps' business.
        parsed = feedparser.parse(f.read(), sanitize_html=False, resolve_relative_uris=False)
    if parsed.get("bozo"):
        # Not well-formed (or another problem feedparser noticed): report it, do not hide it.
        print(f"feedparser: bozo: {parsed.get('bozo_exception')!r}", file=sys.stderr)
        return 1
    out = {"version": parsed.get("version"), "feed": parsed.feed, "entries": parsed.entries}
    # time.struct_time values (the *_parsed keys) become lists; everything else is plain data.
    json.dump(out, sys.stdout, default=list, ensure_ascii=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
