// Loads podhost's public pages in the system's headless Chromium and checks them as a listener's
// browser sees them: no console errors, no failed or refused requests (the Content-Security-Policy
// included), a title, one h1, landmarks, alt text, and a playable <audio> whose source answers
// with audio; and axe-core finds no WCAG 2.1 AA violation. Saves screenshots (desktop, mobile, dark)
// of every page.
//
// usage: node check-pages.mjs --out DIR NAME=URL [NAME=URL ...]
// env:   PODHOST_CHROMIUM  the browser binary (default /usr/bin/chromium)
//
// Exits 0 when every page passes, 1 otherwise (each problem on stderr). Never downloads a browser.

import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { axeViolations } from "./axe.mjs";
import { inEachView, watchProblems } from "./chromium.mjs";



function parseArgs(argv) {
  const pages = [];
  let out = null;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--out") {
      out = argv[++i];
    } else {
      const eq = argv[i].indexOf("=");
      if (eq < 1) throw new Error(`expected NAME=URL, got ${argv[i]}`);
      pages.push({ name: argv[i].slice(0, eq), url: argv[i].slice(eq + 1) });
    }
  }
  if (!out || pages.length === 0) throw new Error("usage: check-pages.mjs --out DIR NAME=URL...");
  return { out, pages };
}

/** Checks one page in one view; returns the problems found and the screenshot's path. */
async function checkPage(context, page, view, out) {
  const problems = [];
  const tab = await context.newPage();
  await tab.setViewportSize(view.viewport);
  watchProblems(tab, problems);

  const response = await tab.goto(page.url, { waitUntil: "load" });
  if (!response || response.status() !== 200) {
    problems.push(`the page answered ${response?.status()}`);
  }
  const facts = await tab.evaluate(() => ({
    title: document.title,
    lang: document.documentElement.lang,
    h1: document.querySelectorAll("h1").length,
    main: document.querySelectorAll("main").length,
    header: document.querySelectorAll("header").length,
    footer: document.querySelectorAll("footer").length,
    viewport: !!document.querySelector('meta[name="viewport"]'),
    imagesWithoutAlt: [...document.images].filter((i) => !i.hasAttribute("alt")).map((i) => i.src),
    brokenImages: [...document.images].filter((i) => !i.complete || i.naturalWidth === 0).map((i) => i.src),
    // Scripts a browser runs: a JSON-LD data block (schema.org, for search engines and link
    // previews) is not one.
    scripts: [...document.scripts].filter((s) => s.type !== "application/ld+json").length,
    dataBlocks: [...document.scripts].filter((s) => s.type === "application/ld+json").map((s) => JSON.parse(s.textContent)["@type"]),
    headings: [...document.querySelectorAll("h1,h2,h3,h4,h5,h6")].map((h) => Number(h.tagName[1])),
    audio: [...document.querySelectorAll("audio")].map((a) => ({
      label: a.getAttribute("aria-label"),
      src: a.querySelector("source")?.src ?? a.src,
      type: a.querySelector("source")?.type ?? "",
    })),
    overflowX: document.documentElement.scrollWidth > window.innerWidth,
    comments: document.querySelectorAll("article.comment").length,
  }));
  if (!facts.title.trim()) problems.push("no <title>");
  if (facts.h1 !== 1) problems.push(`${facts.h1} h1 elements (one expected)`);
  if (!facts.lang) problems.push("no lang on <html>");
  if (facts.main !== 1 || facts.header < 1 || facts.footer < 1) problems.push("missing landmarks");
  if (!facts.viewport) problems.push("no viewport meta");
  if (facts.scripts !== 0) problems.push("the page has scripts");
  // What the page says it is, in schema.org's words, parsed as a browser parses it.
  const kind = page.name.startsWith("episode-page") ? "PodcastEpisode" : "PodcastSeries";
  if (facts.dataBlocks.join() !== kind) problems.push(`JSON-LD says ${facts.dataBlocks}, not ${kind}`);
  if (facts.imagesWithoutAlt.length) problems.push(`images without alt: ${facts.imagesWithoutAlt}`);
  if (facts.brokenImages.length) problems.push(`images that did not load: ${facts.brokenImages}`);
  if (facts.overflowX) problems.push("the page scrolls sideways");
  facts.headings.forEach((level, i) => {
    if (i > 0 && level > facts.headings[i - 1] + 1) {
      problems.push(`heading h${level} follows h${facts.headings[i - 1]}`);
    }
  });
  for (const audio of facts.audio) {
    if (!audio.label) problems.push("an <audio> without a label");
    // The player can read the enclosure: the browser loads its metadata...
    const ready = await tab
      .waitForFunction(() => [...document.querySelectorAll("audio")].every((a) => a.readyState >= 1), null, {
        timeout: 15000,
      })
      .then(() => true)
      .catch(() => false);
    if (!ready) problems.push(`the player could not load ${audio.src}`);
    // ...and the source answers with audio, whole and in ranges.
    for (const headers of [{}, { range: "bytes=0-1023" }]) {
      const res = await tab.request.get(audio.src, { headers });
      const type = res.headers()["content-type"] ?? "";
      if (![200, 206].includes(res.status()) || !type.startsWith("audio/")) {
        problems.push(`the audio answered ${res.status()} ${type} to ${JSON.stringify(headers)}`);
      }
    }
  }
  const file = join(out, `${page.name}${view.suffix}.png`);
  // Accessibility: WCAG 2.1 AA by axe-core, in this view (light, dark, phone).
  problems.push(...(await axeViolations(tab)));
  await tab.screenshot({ path: file, fullPage: true });
  await tab.close();
  return { problems, file, facts };
}

async function main() {
  const { out, pages } = parseArgs(process.argv.slice(2));
  await mkdir(out, { recursive: true });
  let failed = 0;
  await inEachView(async (context, view) => {
    for (const page of pages) {
      const { problems, file, facts } = await checkPage(context, page, view, out);
      const label = `${page.name}${view.suffix}`;
      if (problems.length) {
        failed += 1;
        for (const p of problems) console.error(`FAIL ${label}: ${p}`);
      } else {
        console.log(`ok ${label}: "${facts.title}", ${facts.audio.length} player(s), ${facts.comments} comment(s), screenshot ${file}`);
      }
    }
  });
  process.exit(failed ? 1 : 0);
}

main().catch((err) => {
  console.error(`FAIL: ${err.stack ?? err}`);
  process.exit(1);
});
