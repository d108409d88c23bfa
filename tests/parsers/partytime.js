// Parses an RSS file with podcast-partytime (the Podcast Index parser) and prints the feed object
// as JSON on stdout. Usage: node partytime.js FEED.xml
// With --categories: prints partytime's list of Apple Podcasts categories instead.
// Run by podhost-core/tests/feed_parsers.rs; installed by scripts/test (npm ci in this folder).
"use strict";

// partytime logs parse warnings with pino on stdout; stdout carries the JSON alone.
process.env.PARTYTIME_LOG = "silent";

const fs = require("fs");
const { parseFeed } = require("podcast-partytime");

const path = process.argv[2];
if (!path) {
  console.error("usage: node partytime.js FEED.xml | --categories");
  process.exit(2);
}
if (path === "--categories") {
  // partytime's copy of Apple's category list, to hold podhost's against.
  const { itunesCategoriesSourceOfTruth } = require("podcast-partytime/dist/parser/itunes-categories");
  process.stdout.write(JSON.stringify(itunesCategoriesSourceOfTruth));
  process.exit(0);
}
const feed = parseFeed(fs.readFileSync(path, "utf8"), { allowMissingGuid: false });
if (!feed) {
  console.error(`partytime could not parse ${path}`);
  process.exit(1);
}
process.stdout.write(JSON.stringify(feed));
