// Every page of podhost's site and its public pages as people see them, in the system's
// headless Chromium: in English and in German (the browser's language, so Accept-Language
// chooses), 1280 and 390 px wide, signed in as whom the page is for (a session cookie) or signed
// out. On each page:
//
// - it answers the status expected, with no console error and no failed request;
// - nothing overflows its box sideways (an element whose content is wider than it, that does
//   not scroll on purpose: `overflow-x: auto` or `scroll`), and the page does not scroll sideways;
// - every control (input, select, textarea, button) has an accessible name, is at least 24 px
//   tall (WCAG 2.2's target size; checkboxes and radio buttons have their label to hit), and no
//   label's words run into the control they label (at least 4 px between them on a line);
// - axe-core finds no violation of WCAG 2.1 AA;
//
// and a full-page screenshot is kept: OUT/NAME-LANG-WIDTH.png (en-1280, en-390, de-1280,
// de-390), for a person to look at.
//
// usage: node check-site.mjs SPEC.json
//   SPEC: {"base": URL, "public": the deployment's public URL (requests to it go to base),
//          "out": DIR, "sessions": {WHO: COOKIE}, "pages": [{"name", "path",
//          "as": WHO or null, "status": 200}]}
// env:   PODHOST_CHROMIUM  the browser binary (default /usr/bin/chromium)
//
// Exits 0 when every page passes, 1 otherwise (each problem on stderr). Never downloads a browser.

import { mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { axeViolations } from "./axe.mjs";
import { args as CHROMIUM_ARGS, executablePath } from "./chromium.mjs";

const LANGUAGES = [
  { tag: "en", locale: "en-US" },
  { tag: "de", locale: "de-DE" },
];
const WIDTHS = [
  { width: 1280, height: 900, mobile: false },
  { width: 390, height: 844, mobile: true },
];
/** Pages checked at once (the server and the browser share 2 cores). */
const AT_ONCE = 2;

/** What the page shows wrong in its layout and its controls (runs in the page). */
function layoutProblems() {
  const problems = [];
  const describe = (el) => {
    let what = el.tagName.toLowerCase();
    if (el.id) what += `#${el.id}`;
    const classes = typeof el.className === "string" ? el.className.trim() : "";
    if (classes) what += "." + classes.split(/\s+/).join(".");
    const text = (el.getAttribute("aria-label") || el.textContent || "").trim().replace(/\s+/g, " ");
    return text ? `${what} "${text.slice(0, 50)}"` : what;
  };
  // Visually hidden on purpose, for screen readers: clipped to a pixel (a table's header row
  // when its rows are shown as a list on a phone).
  const clipped = (el) => {
    for (let at = el; at; at = at.parentElement) {
      const box = at.getBoundingClientRect();
      if (box.width <= 1 && box.height <= 1 && getComputedStyle(at).overflow !== "visible") return true;
    }
    return false;
  };
  const shown = (el) => {
    const style = getComputedStyle(el);
    if (style.display === "none" || style.visibility === "hidden") return false;
    const box = el.getBoundingClientRect();
    return box.width > 0 && box.height > 0 && !clipped(el);
  };

  // Overflow: the innermost boxes whose content is wider than they are.
  const overflowing = [];
  for (const el of document.body.querySelectorAll("*")) {
    if (el instanceof SVGElement && !(el instanceof SVGSVGElement)) continue;
    if (["INPUT", "TEXTAREA", "SELECT", "OPTION", "SCRIPT", "STYLE"].includes(el.tagName)) continue;
    if (!shown(el)) continue;
    const style = getComputedStyle(el);
    if (style.display === "inline" || style.display === "contents") continue;
    // Scrolls on purpose (a table of numbers, a code block).
    if (style.overflowX === "auto" || style.overflowX === "scroll") continue;
    if (el.scrollWidth > el.clientWidth + 1) overflowing.push(el);
  }
  for (const el of overflowing) {
    if (overflowing.some((other) => other !== el && el.contains(other))) continue;
    const style = getComputedStyle(el);
    const how = style.overflowX === "visible" ? "overflows" : "is cut off in";
    problems.push(`its content ${how} ${describe(el)}: ${el.scrollWidth} px in ${el.clientWidth} px`);
  }
  if (document.documentElement.scrollWidth > window.innerWidth) {
    problems.push(`the page scrolls sideways: ${document.documentElement.scrollWidth} px in ${window.innerWidth} px`);
  }
  // Textareas: their text fits, or wraps.
  for (const el of document.querySelectorAll("textarea")) {
    if (!shown(el)) continue;
    if (el.scrollWidth > el.clientWidth + 1) problems.push(`${describe(el)} cuts its text off sideways`);
    // A box of code to copy shows it whole (a form's empty field may scroll once typed in).
    if (el.readOnly && el.scrollHeight > el.clientHeight + 1) {
      problems.push(`${describe(el)} cuts its text off: ${el.scrollHeight} px in ${el.clientHeight} px`);
    }
  }

  // Controls: a name, a size to hit, and room between a label's words and its control.
  const controls = document.querySelectorAll("input:not([type=hidden]), select, textarea, button");
  for (const el of controls) {
    if (!shown(el)) continue;
    const labelled =
      (el.labels && [...el.labels].some((l) => l.textContent.trim())) ||
      (el.getAttribute("aria-label") || "").trim() ||
      (el.getAttribute("aria-labelledby") || "")
        .split(/\s+/)
        .some((id) => document.getElementById(id)?.textContent.trim()) ||
      (el.getAttribute("title") || "").trim() ||
      (el.tagName === "BUTTON" && el.textContent.trim());
    if (!labelled) problems.push(`${describe(el)} has no label`);
    const box = el.getBoundingClientRect();
    const small = el.type === "checkbox" || el.type === "radio";
    if (!small && box.height < 24) problems.push(`${describe(el)} is ${box.height.toFixed(0)} px tall (24 at least)`);
    for (const label of el.labels ?? []) {
      const words = [...label.childNodes].filter((n) => n.nodeType === Node.TEXT_NODE && n.textContent.trim());
      for (const node of words) {
        // The words alone, without the spaces around them.
        const text = node.textContent;
        const range = document.createRange();
        range.setStart(node, text.length - text.trimStart().length);
        range.setEnd(node, text.trimEnd().length);
        for (const line of range.getClientRects()) {
          const sameLine = line.bottom > box.top + 2 && line.top < box.bottom - 2;
          if (!sameLine) continue;
          const gap = Math.max(box.left - line.right, line.left - box.right);
          if (gap < 4) problems.push(`the label "${node.textContent.trim()}" runs into ${describe(el)} (${gap.toFixed(0)} px apart)`);
        }
      }
    }
  }
  return problems;
}

/** Checks one page in one view; its problems. */
async function checkPage(context, base, page, view, out) {
  const problems = [];
  const tab = await context.newPage();
  const url = base + page.path;
  tab.on("console", (msg) => {
    if (msg.type() === "error" && !/status of 404/.test(msg.text())) problems.push(`console error: ${msg.text()}`);
  });
  tab.on("pageerror", (err) => problems.push(`page error: ${err.message}`));
  tab.on("requestfailed", (req) => {
    const reason = req.failure()?.errorText ?? "";
    if (req.resourceType() === "media" && reason === "net::ERR_ABORTED") return;
    problems.push(`request failed: ${req.url()} (${reason})`);
  });
  tab.on("response", (res) => {
    if (res.status() >= 400 && res.url() !== url) problems.push(`HTTP ${res.status()} for ${res.url()}`);
  });
  try {
    const response = await tab.goto(url, { waitUntil: "load" });
    if (response?.status() !== page.status) problems.push(`answered ${response?.status()}, not ${page.status}`);
    // The site's pages are in the reader's language; a podcast's are in the podcast's, with
    // their own words in the reader's.
    const lang = await tab.evaluate(() => document.documentElement.lang);
    const site = !/^\/(podcasts|embed)\//.test(page.path);
    if (site && !lang.startsWith(view.tag)) problems.push(`in ${lang}, not ${view.tag}`);
    problems.push(...(await tab.evaluate(layoutProblems)));
    problems.push(...(await axeViolations(tab)));
    await tab.screenshot({ path: join(out, `${page.name}-${view.tag}-${view.width}.png`), fullPage: true });
  } catch (e) {
    problems.push(`${e.message ?? e}`);
  } finally {
    await tab.close();
  }
  return problems;
}

async function main() {
  const spec = JSON.parse(await readFile(process.argv[2], "utf8"));
  const base = spec.base.replace(/\/$/, "");
  await mkdir(spec.out, { recursive: true });
  const browser = await chromium.launch({ executablePath, headless: true, args: CHROMIUM_ARGS });
  let failed = 0;
  try {
    for (const language of LANGUAGES) {
      for (const size of WIDTHS) {
        const view = { tag: language.tag, width: size.width };
        // A browser of this language and width for each person (and one signed out).
        const contexts = new Map();
        const contextOf = (who) => {
          if (!contexts.has(who)) {
            contexts.set(
              who,
              browser
                .newContext({
                  locale: language.locale,
                  viewport: { width: size.width, height: size.height },
                  isMobile: size.mobile,
                  hasTouch: size.mobile,
                  deviceScaleFactor: 1,
                  colorScheme: "light",
                })
                .then(async (context) => {
                  // The deployment's public URL (its media, its links) is served by the server
                  // under test.
                  if (spec.public && spec.public !== base) {
                    await context.route(`${spec.public}/**`, async (route) => {
                      const url = base + route.request().url().slice(spec.public.length);
                      await route.fulfill({ response: await route.fetch({ url }) });
                    });
                  }
                  if (who) await context.addCookies([{ name: "podhost_session", value: spec.sessions[who], url: base }]);
                  return context;
                }),
            );
          }
          return contexts.get(who);
        };
        const queue = [...spec.pages];
        const worker = async () => {
          for (let page = queue.shift(); page; page = queue.shift()) {
            const problems = await checkPage(await contextOf(page.as ?? null), base, page, view, spec.out);
            const label = `${page.name}-${view.tag}-${view.width}`;
            if (problems.length) {
              failed += 1;
              for (const p of problems) console.error(`FAIL ${label}: ${p}`);
            } else {
              console.log(`ok ${label}`);
            }
          }
        };
        await Promise.all(Array.from({ length: AT_ONCE }, worker));
        for (const context of contexts.values()) await (await context).close();
      }
    }
  } finally {
    await browser.close();
  }
  console.log(`screenshots in ${spec.out}`);
  process.exit(failed ? 1 : 0);
}

main().catch((err) => {
  console.error(`FAIL: ${err.stack ?? err}`);
  process.exit(1);
});
