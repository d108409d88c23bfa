// Plays an episode with ads (a stitched enclosure answer) in the system's headless Chromium and
// seeks in it, as a listener's browser would: an <audio> element on the episode's URL. Prints,
// as JSON on stdout: {duration, played, seek_to, after_seek, seeks, statuses, ranges, errors},
// where `duration` is what the browser read of the file (seconds), `played` how far it played
// from the start, `after_seek` where it played to after the first seek, `seeks` per seek
// {to, seeked, played_to}: where the element said it was once the seek was done and where it
// played to after it; `statuses` the HTTP statuses of the media requests and `ranges` their
// Range headers.
//
// usage: node check-ads.mjs URL SEEK_SECONDS [SEEK_SECONDS...]
// env:   PODHOST_CHROMIUM  the browser binary (default /usr/bin/chromium)
//
// Exits 1 when the element reports an error or does not play. Never downloads a browser.

import { chromium } from "playwright-core";
import { args, executablePath } from "./chromium.mjs";

const [url, ...seekArgs] = process.argv.slice(2);
if (!url || seekArgs.length === 0) {
  console.error("usage: node check-ads.mjs URL SEEK_SECONDS [SEEK_SECONDS...]");
  process.exit(2);
}
const seekTos = seekArgs.map(Number);

const browser = await chromium.launch({ executablePath, args });
const errors = [];
const statuses = [];
const ranges = [];
try {
  const page = await browser.newPage();
  page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("request", (r) => {
    if (r.url() === url) ranges.push(r.headers()["range"] ?? null);
  });
  page.on("response", (r) => {
    if (r.url() === url) statuses.push(r.status());
  });
  await page.setContent(`<!doctype html><html><body><audio id="a" preload="auto"></audio></body></html>`);
  const result = await page.evaluate(
    async ({ url, seekTos }) => {
      const a = document.getElementById("a");
      const failed = () => (a.error ? `media error ${a.error.code}: ${a.error.message}` : null);
      const until = (test, ms) =>
        new Promise((resolve, reject) => {
          const started = performance.now();
          const tick = () => {
            if (failed()) return reject(new Error(failed()));
            if (test()) return resolve();
            if (performance.now() - started > ms) return reject(new Error(`timed out at ${a.currentTime}`));
            setTimeout(tick, 20);
          };
          tick();
        });
      a.muted = true;
      a.src = url;
      await until(() => a.readyState >= 1 && Number.isFinite(a.duration), 20000);
      const duration = a.duration;
      await a.play();
      await until(() => a.currentTime > 1.0, 20000);
      const played = a.currentTime;
      const seeks = [];
      for (const to of seekTos) {
        const seeked = new Promise((resolve) => a.addEventListener("seeked", resolve, { once: true }));
        a.currentTime = to;
        await seeked;
        const at = a.currentTime;
        await until(() => !a.seeking && a.currentTime > to + 1.0, 20000);
        seeks.push({ to, seeked: at, played_to: a.currentTime });
      }
      a.pause();
      return { duration, played, seek_to: seekTos[0], after_seek: seeks[0].played_to, seeks };
    },
    { url, seekTos },
  );
  console.log(JSON.stringify({ ...result, statuses, ranges, errors }));
  if (errors.length) process.exitCode = 1;
} catch (e) {
  console.error(String(e));
  console.log(JSON.stringify({ statuses, ranges, errors: [...errors, String(e)] }));
  process.exitCode = 1;
} finally {
  await browser.close();
}
