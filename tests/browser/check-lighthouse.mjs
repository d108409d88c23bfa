// Lighthouse (npm, pinned in package.json) on podhost's pages, in the system's headless
// Chromium (the one the other browser tests use), with Lighthouse's default settings (a phone,
// its simulated slow network and CPU). Each page must score 100 for accessibility, best
// practices and SEO, and at least 95 for performance. Saves each page's report as HTML.
//
// usage: node check-lighthouse.mjs --out DIR NAME=URL [NAME=URL ...]
// env:   PODHOST_CHROMIUM  the browser binary (default /usr/bin/chromium)
//
// Prints one JSON line of the scores; exits 0 when every page scores what it must, 1 otherwise
// (each shortfall on stderr with the audits that cost it). Never downloads a browser.

import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import * as chromeLauncher from "chrome-launcher";
import lighthouse from "lighthouse";
import { args as chromiumArgs, executablePath } from "./chromium.mjs";

/** The least score of each category (0 to 100). */
const AT_LEAST = { performance: 95, accessibility: 100, "best-practices": 100, seo: 100 };

function parseArgs(argv) {
  const pages = [];
  let out = null;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--out") out = argv[++i];
    else {
      const eq = argv[i].indexOf("=");
      if (eq < 1) throw new Error(`expected NAME=URL, got ${argv[i]}`);
      pages.push({ name: argv[i].slice(0, eq), url: argv[i].slice(eq + 1) });
    }
  }
  if (!out || pages.length === 0) throw new Error("usage: check-lighthouse.mjs --out DIR NAME=URL...");
  return { out, pages };
}

async function main() {
  const { out, pages } = parseArgs(process.argv.slice(2));
  await mkdir(out, { recursive: true });
  const chrome = await chromeLauncher.launch({
    chromePath: executablePath,
    // The flags of the other browser tests but --headless, which chrome-launcher takes as its own.
    chromeFlags: ["--headless=new", ...chromiumArgs.filter((f) => f !== "--headless")],
  });
  const scores = {};
  let failed = false;
  try {
    for (const page of pages) {
      const result = await lighthouse(page.url, {
        port: chrome.port,
        output: "html",
        logLevel: "error",
        onlyCategories: Object.keys(AT_LEAST),
      });
      await writeFile(join(out, `lighthouse-${page.name}.html`), result.report);
      const lhr = result.lhr;
      scores[page.name] = {};
      for (const [id, least] of Object.entries(AT_LEAST)) {
        const category = lhr.categories[id];
        const score = Math.round((category.score ?? 0) * 100);
        scores[page.name][id] = score;
        if (score < least) {
          failed = true;
          const lost = category.auditRefs
            .map((ref) => lhr.audits[ref.id])
            .filter((a) => a.score !== null && a.score < 1 && a.scoreDisplayMode !== "informative")
            .map((a) => `${a.id} (${a.displayValue ?? a.score})`);
          console.error(`${page.name}: ${id} ${score} < ${least}: ${lost.join(", ")}`);
        }
      }
      if (lhr.runtimeError) {
        failed = true;
        console.error(`${page.name}: ${lhr.runtimeError.code}: ${lhr.runtimeError.message}`);
      }
    }
  } finally {
    await chrome.kill();
  }
  console.log(JSON.stringify(scores));
  process.exit(failed ? 1 : 0);
}

main().catch((e) => {
  console.error(e.stack || String(e));
  process.exit(1);
});
