// Loads podhost's statistics pages (the site's, signed in with a session cookie, and a public
// one) in the system's headless Chromium and checks every chart as a reader sees it: the page
// loads with no console error and no refused request (a Content-Security-Policy violation is a
// console error), runs no script, and each chart (figure.chart) has an SVG whose source, as the
// server wrote it, the browser parses as a standalone SVG document, that is drawn at a real
// size, and that draws data
// (a line of two points or more, a bar with height, or a point), beside a table of its numbers.
// Saves screenshots (desktop, mobile, dark) of every page.
//
// usage: node check-charts.mjs --out DIR [--cookie NAME=VALUE] NAME=URL [NAME=URL ...]
// env:   PODHOST_CHROMIUM  the browser binary (default /usr/bin/chromium)
//
// Exits 0 when every page passes, 1 otherwise (each problem on stderr). Never downloads a browser.

import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { axeViolations } from "./axe.mjs";
import { inEachView } from "./chromium.mjs";


function parseArgs(argv) {
  const pages = [];
  let out = null;
  let cookie = null;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--out") {
      out = argv[++i];
    } else if (argv[i] === "--cookie") {
      const [name, ...value] = argv[++i].split("=");
      cookie = { name, value: value.join("=") };
    } else {
      const eq = argv[i].indexOf("=");
      if (eq < 1) throw new Error(`expected NAME=URL, got ${argv[i]}`);
      pages.push({ name: argv[i].slice(0, eq), url: argv[i].slice(eq + 1) });
    }
  }
  if (!out || pages.length === 0) throw new Error("usage: check-charts.mjs --out DIR [--cookie N=V] NAME=URL...");
  return { out, cookie, pages };
}

async function checkPage(context, page, view, out) {
  const problems = [];
  const tab = await context.newPage();
  tab.on("console", (msg) => {
    if (msg.type() === "error") problems.push(`console error: ${msg.text()}`);
  });
  tab.on("pageerror", (err) => problems.push(`page error: ${err.message}`));
  tab.on("requestfailed", (req) => problems.push(`request failed: ${req.url()} (${req.failure()?.errorText})`));
  tab.on("response", (res) => {
    if (res.status() >= 400) problems.push(`HTTP ${res.status()} for ${res.url()}`);
  });
  const response = await tab.goto(page.url, { waitUntil: "load" });
  if (!response || response.status() !== 200) problems.push(`the page answered ${response?.status()}`);
  // Each SVG as the server wrote it (not as the browser's HTML parser repaired it), parsed as
  // an SVG document of its own: an element without its end tag is an error there.
  const sources = ((await response.text()).match(/<svg xmlns=[\s\S]*?<\/svg>/g)) ?? [];
  const standalone = await tab.evaluate(
    (sources) =>
      sources.map((source) => {
        const parsed = new DOMParser().parseFromString(source, "image/svg+xml");
        return !parsed.querySelector("parsererror") && parsed.documentElement.localName === "svg";
      }),
    sources,
  );
  const facts = await tab.evaluate(() => {
    const charts = [...document.querySelectorAll("figure.chart")].map((figure) => {
      const svg = figure.querySelector("svg");
      const box = svg ? svg.getBoundingClientRect() : { width: 0, height: 0 };
      const marks =
        [...figure.querySelectorAll("svg polyline")].filter((p) => p.points.numberOfItems > 1).length +
        [...figure.querySelectorAll("svg rect")].filter((r) => r.height.baseVal.value > 0 && r.width.baseVal.value > 0).length +
        figure.querySelectorAll("svg circle").length;
      return {
        id: figure.id,
        caption: figure.querySelector("figcaption")?.textContent?.trim() ?? "",
        svg: !!svg,
        label: svg?.getAttribute("role") === "img" && !!svg.querySelector("title")?.textContent,
        width: box.width,
        height: box.height,
        marks,
        rows: figure.querySelectorAll("table tbody tr").length,
      };
    });
    return {
      title: document.title,
      h1: document.querySelectorAll("h1").length,
      scripts: document.scripts.length,
      charts,
      overflowX: document.documentElement.scrollWidth > window.innerWidth,
    };
  });
  if (!facts.title.trim()) problems.push("no <title>");
  if (facts.h1 !== 1) problems.push(`${facts.h1} h1 elements (one expected)`);
  if (facts.scripts !== 0) problems.push("the page has scripts");
  if (facts.charts.length === 0) problems.push("no charts");
  if (standalone.length !== facts.charts.length) {
    problems.push(`${standalone.length} SVG sources for ${facts.charts.length} charts`);
  }
  standalone.forEach((ok, i) => {
    if (!ok) problems.push(`chart ${i + 1}: its SVG source does not parse as an SVG document`);
  });
  if (facts.overflowX) problems.push("the page scrolls sideways");
  for (const c of facts.charts) {
    if (!c.svg) problems.push(`${c.id}: no SVG`);
    if (!c.label) problems.push(`${c.id}: the SVG has no role and title`);
    if (c.width < 280 || c.height < 10) problems.push(`${c.id}: drawn at ${c.width}x${c.height}`);
    if (c.marks === 0) problems.push(`${c.id}: draws no data`);
    if (c.rows === 0) problems.push(`${c.id}: its table has no rows`);
  }
  const file = join(out, `${page.name}${view.suffix}.png`);
  // Accessibility: WCAG 2.1 AA by axe-core, in this view (light, dark, phone).
  problems.push(...(await axeViolations(tab)));
  await tab.screenshot({ path: file, fullPage: true });
  await tab.close();
  return { problems, file, facts };
}

async function main() {
  const { out, cookie, pages } = parseArgs(process.argv.slice(2));
  await mkdir(out, { recursive: true });
  let failed = 0;
  await inEachView(async (context, view) => {
    if (cookie) {
      const url = new URL(pages[0].url);
      await context.addCookies([{ name: cookie.name, value: cookie.value, url: url.origin }]);
    }
    for (const page of pages) {
      const { problems, file, facts } = await checkPage(context, page, view, out);
      const label = `${page.name}${view.suffix}`;
      if (problems.length) {
        failed += 1;
        for (const p of problems) console.error(`FAIL ${label}: ${p}`);
      } else {
        const charts = facts.charts.map((c) => `${c.id} (${c.marks} marks, ${c.rows} rows)`).join(", ");
        console.log(`ok ${label}: "${facts.title}": ${charts}; screenshot ${file}`);
      }
    }
  });
  process.exit(failed ? 1 : 0);
}

main().catch((err) => {
  console.error(`FAIL: ${err.stack ?? err}`);
  process.exit(1);
});
