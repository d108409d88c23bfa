// The embeddable player as a listener meets it: on another site's page, framed by the code
// podhost's oEmbed answer gives, in the system's headless Chromium. In each view (desktop,
// phone, dark) it checks that the framing page and the player load with no console error and
// no refused or failed request (the player's Content-Security-Policy included), then uses the
// player as a listener would:
//   - plays (the play button, then Space from the keyboard pauses it);
//   - changes the speed (1× to 1.25×);
//   - jumps to the last chapter (the time the listener's own chapters give, moved by their ads);
//   - follows the transcript: the line being said is marked while it plays.
// and runs axe-core's WCAG 2.1 AA rules in the player. Prints a JSON report on stdout (per view: the chapter's time and where the player went, the
// marked line, the speed); saves a screenshot of the framing page per view.
//
// usage: node check-player.mjs --out DIR [--locales en-US,de-DE] OEMBED_URL
// (with --locales, every view once per browser language: the first language's screenshots are
// player*.png, another's player-{language}*.png)
// env:   PODHOST_CHROMIUM  the browser binary (default /usr/bin/chromium)
//
// Exits 0 when every view passes, 1 otherwise (each problem on stderr). Never downloads a browser.

import { createServer } from "node:http";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { axeViolations } from "./axe.mjs";
import { inEachView, watchProblems } from "./chromium.mjs";

function parseArgs(argv) {
  let out = null;
  let oembed = null;
  let locales = [null];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--out") out = argv[++i];
    else if (argv[i] === "--locales") locales = argv[++i].split(",");
    else oembed = argv[i];
  }
  if (!out || !oembed) throw new Error("usage: check-player.mjs --out DIR [--locales en-US,de-DE] OEMBED_URL");
  return { out, oembed, locales };
}

/** Serves one page, another site's, with `code` in it; resolves to its URL. */
function framingSite(code) {
  const page = `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><link rel="icon" href="data:,"><title>A listener's blog</title></head>
<body><main><h1>This week's episode</h1>${code}</main></body></html>`;
  const server = createServer((req, res) => {
    res.writeHead(req.url === "/" ? 200 : 404, { "content-type": "text/html; charset=utf-8" });
    res.end(req.url === "/" ? page : "");
  });
  return new Promise((resolve) => {
    // "localhost", where podhost is 127.0.0.1: another origin, as another site is.
    server.listen(0, "127.0.0.1", () =>
      resolve({ url: `http://localhost:${server.address().port}/`, server }),
    );
  });
}

async function checkView(context, view, site, out, name) {
  const problems = [];
  const tab = await context.newPage();
  watchProblems(tab, problems);
  await tab.goto(site, { waitUntil: "load" });
  const handle = await tab.waitForSelector("iframe");
  const frame = await handle.contentFrame();
  if (!frame) throw new Error("the iframe has no frame");
  await frame.waitForSelector("#controls:not([hidden])", { timeout: 10000 });
  // The listener's chapters arrive (fetched), and the transcript's lines.
  await frame.waitForFunction(() => document.querySelectorAll("#transcript-text p[data-start]").length > 1, null, { timeout: 10000 });
  const facts = await frame.evaluate(() => ({
    title: document.title,
    play: document.getElementById("play").getAttribute("aria-label"),
    h1: document.querySelectorAll("h1").length,
    nativeControls: document.getElementById("media").controls,
    chapters: [...document.querySelectorAll("#chapters [data-start]")].map((c) => Number(c.dataset.start) / 1000),
  }));
  if (facts.nativeControls) problems.push("the browser's controls still show beside the player's");
  if (facts.h1 !== 1) problems.push(`${facts.h1} h1 in the player`);

  // Play with the button; it says it pauses now.
  await frame.click("#play");
  await frame.waitForFunction(() => document.getElementById("media").currentTime > 0.3, null, { timeout: 10000 });
  const label = await frame.getAttribute("#play", "aria-label");
  if (label !== "Pause") problems.push(`the play button says ${label} while playing`);

  // The speed.
  await frame.click("#speed");
  const rate = await frame.evaluate(() => document.getElementById("media").playbackRate);
  if (rate !== 1.25) problems.push(`the speed is ${rate} after one press (1.25 expected)`);

  // The last chapter: where the listener's chapters say it is.
  const last = facts.chapters[facts.chapters.length - 1];
  await frame.click(`#chapters li:last-child button`);
  await frame.waitForFunction((t) => Math.abs(document.getElementById("media").currentTime - t) < 1.5 && !document.getElementById("media").seeking, last, { timeout: 10000 });
  const landed = await frame.evaluate(() => document.getElementById("media").currentTime);
  // Let it play on a little, then see the transcript follow.
  await frame.waitForFunction((t) => document.getElementById("media").currentTime > t + 0.5, landed, { timeout: 10000 });
  const followed = await frame.evaluate(() => {
    const media = document.getElementById("media");
    const marked = document.querySelector("#transcript-text p[aria-current=true]");
    const box = document.getElementById("transcript-text");
    const chapter = document.querySelector("#chapters button[aria-current=true] span:last-child");
    return {
      now: media.currentTime,
      marked: marked ? marked.textContent : null,
      markedStart: marked ? Number(marked.dataset.start) : null,
      visible: marked ? marked.offsetTop - box.offsetTop >= box.scrollTop - 1 && marked.offsetTop - box.offsetTop <= box.scrollTop + box.clientHeight : false,
      chapter: chapter ? chapter.textContent : null,
    };
  });
  if (!followed.marked) problems.push("no transcript line is marked while playing");
  else if (!followed.visible) problems.push("the marked line is out of the transcript's view");

  // The keyboard: Space on the page (not on a control) pauses.
  await frame.focus("h1 a");
  await frame.evaluate(() => document.activeElement.blur());
  await frame.press("body", " ");
  const paused = await frame.evaluate(() => document.getElementById("media").paused);
  if (!paused) problems.push("Space did not pause");

  // Accessibility: WCAG 2.1 AA by axe-core, in the player as framed (light, dark, phone).
  problems.push(...(await axeViolations(frame)));
  await mkdir(out, { recursive: true });
  const shot = join(out, `${name}${view.suffix}.png`);
  await tab.screenshot({ path: shot, fullPage: true });
  await tab.close();
  return { problems, report: { view: view.suffix || "desktop", title: facts.title, play: facts.play, chapters: facts.chapters, chapter: last, landed, rate, followed } };
}

async function main() {
  const { out, oembed, locales } = parseArgs(process.argv.slice(2));
  const answer = await fetch(oembed);
  if (!answer.ok) throw new Error(`oEmbed answered ${answer.status}`);
  const embedding = await answer.json();
  const { url: site, server } = await framingSite(embedding.html);
  const reports = [];
  let failed = false;
  try {
    for (const [i, locale] of locales.entries()) {
      // In a browser of another language the player speaks it (its screenshots are
      // `player-de*.png`).
      const name = i === 0 ? "player" : `player-${locale.split("-")[0]}`;
      await inEachView(async (context, view) => {
        const { problems, report } = await checkView(context, view, site, out, name);
        reports.push({ locale, ...report });
        for (const p of problems) {
          failed = true;
          console.error(`${name}${view.suffix || " desktop"}: ${p}`);
        }
      }, { locale });
    }
  } finally {
    server.close();
  }
  console.log(JSON.stringify({ embedding: { type: embedding.type, width: embedding.width, height: embedding.height }, views: reports }));
  process.exit(failed ? 1 : 0);
}

main().catch((e) => {
  console.error(e.stack || String(e));
  process.exit(1);
});
