// Plays a video's HLS stream with hls.js (pinned in package.json) in the system's headless
// Chromium, as a web player would: loads the multivariant playlist, plays, switches to the top
// rendition and back to the lowest, and seeks to each given second (into and past the ads),
// playing on from each. Prints, as JSON on stdout: {levels, switched, seeks, duration, errors},
// where `levels` are the variants hls.js read (height), `switched` the levels it switched to,
// `seeks` [{to, reached}] how far it played after each seek, `duration` what the <video> read
// and `errors` every error hls.js or the page reported.
//
// usage: node check-hls.mjs MASTER_URL SECONDS...
// env:   PODHOST_CHROMIUM  the browser binary (default /usr/bin/chromium)
//
// Exits 1 when a fatal error happens or playback stalls. Never downloads a browser.

import { createRequire } from "node:module";
import { chromium } from "playwright-core";
import { args, executablePath } from "./chromium.mjs";

const [url, ...seekArgs] = process.argv.slice(2);
if (!url) {
  console.error("usage: node check-hls.mjs MASTER_URL SECONDS...");
  process.exit(2);
}
const require = createRequire(import.meta.url);
const hlsPath = require.resolve("hls.js/dist/hls.min.js");

const browser = await chromium.launch({ executablePath, args });
const pageErrors = [];
try {
  const page = await browser.newPage();
  page.on("pageerror", (e) => pageErrors.push(String(e)));
  await page.setContent(`<!doctype html><html><body><video id="v" muted playsinline></video></body></html>`);
  await page.addScriptTag({ path: hlsPath });
  const result = await page.evaluate(
    async ({ url, seeks }) => {
      const until = (cond, ms) =>
        new Promise((resolve) => {
          const start = performance.now();
          const tick = () => {
            if (cond()) resolve(true);
            else if (performance.now() - start > ms) resolve(false);
            else setTimeout(tick, 50);
          };
          tick();
        });
      const v = document.getElementById("v");
      const hls = new Hls({ startLevel: 0, capLevelToPlayerSize: false });
      const errors = [];
      const switched = [];
      let fatal = false;
      hls.on(Hls.Events.ERROR, (_, d) => {
        errors.push(`${d.type}/${d.details}${d.fatal ? " (fatal)" : ""}`);
        fatal ||= d.fatal;
      });
      hls.on(Hls.Events.LEVEL_SWITCHED, (_, d) => switched.push(d.level));
      const parsed = new Promise((resolve) =>
        hls.on(Hls.Events.MANIFEST_PARSED, (_, d) => resolve(d.levels.map((l) => l.height))),
      );
      hls.loadSource(url);
      hls.attachMedia(v);
      const levels = await parsed;
      await v.play();
      const started = await until(() => v.currentTime > 1 || fatal, 30000);
      // The top rendition, then the lowest.
      const top = levels.length - 1;
      hls.nextLevel = top;
      const up = await until(() => switched.includes(top) || fatal, 30000);
      hls.nextLevel = 0;
      const down = await until(() => switched.lastIndexOf(0) > switched.indexOf(top) || fatal, 30000);
      const reached = [];
      for (const to of seeks) {
        v.currentTime = to;
        await until(() => v.currentTime > to + 1 || v.ended || fatal, 30000);
        reached.push({ to, reached: v.currentTime });
      }
      const duration = v.duration;
      hls.destroy();
      return { levels, switched, started, up, down, seeks: reached, duration, errors, fatal };
    },
    { url, seeks: seekArgs.map(Number) },
  );
  result.errors.push(...pageErrors);
  console.log(JSON.stringify(result));
  const stalled = !result.started || !result.up || !result.down;
  process.exit(result.fatal || stalled ? 1 : 0);
} finally {
  await browser.close();
}
