"""Reads with ElementTree what feedparser does not give back, and prints it as JSON.

Usage: python tags.py FEED.xml
Run by podhost-http/tests/import.rs beside tests/parsers/feedparser_json.py. feedparser folds
itunes:author into the owner's name, knows only yes/no for itunes:explicit, keeps the
attributes and not the text of podcast:locked and podcast:funding (and only the last
podcast:funding), reads every itunes:category as one list, and keeps only the last
podcast:transcript of an item.
"""

import json
import sys
import xml.etree.ElementTree as ET

ITUNES = "{http://www.itunes.com/dtds/podcast-1.0.dtd}"
# Both URIs hosts declare the Podcasting 2.0 namespace with.
PODCAST = (
    "{https://podcastindex.org/namespace/1.0}",
    "{https://github.com/Podcastindex-org/podcast-namespace/blob/main/docs/1.0.md}",
)


def podcast(element, name):
    return [child for child in element if child.tag in (ns + name for ns in PODCAST)]


def text(element):
    return None if element is None else (element.text or "").strip()


def main() -> int:
    channel = ET.parse(sys.argv[1]).getroot().find("channel")
    category = channel.find(ITUNES + "category")
    sub = None if category is None else category.find(ITUNES + "category")
    locked = podcast(channel, "locked")
    out = {
        "author": text(channel.find(ITUNES + "author")),
        "explicit": text(channel.find(ITUNES + "explicit")),
        "category": None if category is None else category.get("text"),
        "subcategory": None if sub is None else sub.get("text"),
        "locked": text(locked[0]) if locked else None,
        "funding": [[f.get("url"), text(f)] for f in podcast(channel, "funding")],
        "items": [
            {
                "guid": text(item.find("guid")),
                "block": text(item.find(ITUNES + "block")),
                "transcripts": [
                    [t.get("url"), t.get("type")] for t in podcast(item, "transcript")
                ],
            }
            for item in channel.findall("item")
        ],
    }
    json.dump(out, sys.stdout, ensure_ascii=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
