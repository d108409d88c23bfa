// Loads waveform files in peaks.js (the waveform UI that audiowaveform's format is made for) in
// the system's headless Chromium, and prints what peaks.js read from each, as JSON on stdout:
// [{file, format, channels, sample_rate, scale, bits, length, min, max, drawn}], where `drawn` is
// the number of painted pixels of the zoom view's canvases (0 means nothing was drawn).
//
// usage: node check-peaks.mjs FILE.dat|FILE.json ...
// env:   PODHOST_CHROMIUM  the browser binary (default /usr/bin/chromium)
//
// Exits 1 when peaks.js refuses a file or the page logs an error. Never downloads a browser.

import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { chromium } from "playwright-core";
import { args, executablePath } from "./chromium.mjs";

const require = createRequire(import.meta.url);
// The standalone build, with Konva and waveform-data inside.
const PEAKS = require.resolve("peaks.js/dist/peaks.js");

const PAGE = `<!doctype html><html><body>
<div id="zoomview" style="width: 1000px; height: 200px"></div>
<div id="overview" style="width: 1000px; height: 80px"></div>
<audio id="audio" preload="none"></audio>
</body></html>`;

/** Runs in the page: Peaks.init with the waveform, then what it holds and what it drew. */
async function loadInPeaks({ format, payload }) {
  const waveformData =
    format === "json"
      ? { json: JSON.parse(payload) }
      : { arraybuffer: Uint8Array.from(atob(payload), (c) => c.charCodeAt(0)).buffer };
  const peaks = await new Promise((resolve, reject) => {
    window.peaks.init(
      {
        zoomview: { container: document.getElementById("zoomview") },
        overview: { container: document.getElementById("overview") },
        mediaElement: document.getElementById("audio"),
        waveformData,
      },
      (err, instance) => (err ? reject(new Error(`Peaks.init: ${err.message}`)) : resolve(instance)),
    );
  });
  await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  const data = peaks.getWaveformData();
  const channel = data.channel(0);
  let drawn = 0;
  for (const canvas of document.querySelectorAll("#zoomview canvas")) {
    const pixels = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height).data;
    for (let i = 3; i < pixels.length; i += 4) if (pixels[i] !== 0) drawn++;
  }
  const result = {
    channels: data.channels,
    sample_rate: data.sample_rate,
    scale: data.scale,
    bits: data.bits,
    length: data.length,
    min: Array.from({ length: data.length }, (_, i) => channel.min_sample(i)),
    max: Array.from({ length: data.length }, (_, i) => channel.max_sample(i)),
    drawn,
  };
  peaks.destroy();
  return result;
}

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error("usage: check-peaks.mjs FILE.dat|FILE.json ...");
  process.exit(2);
}
const browser = await chromium.launch({ executablePath, args });
const problems = [];
const results = [];
try {
  for (const file of files) {
    const format = file.endsWith(".json") ? "json" : "dat";
    const bytes = await readFile(file);
    const payload = format === "json" ? bytes.toString("utf8") : bytes.toString("base64");
    const tab = await browser.newPage();
    tab.on("console", (msg) => {
      if (msg.type() === "error") problems.push(`${file}: console error: ${msg.text()}`);
    });
    tab.on("pageerror", (err) => problems.push(`${file}: page error: ${err.message}`));
    await tab.setContent(PAGE);
    await tab.addScriptTag({ path: PEAKS });
    try {
      results.push({ file, format, ...(await tab.evaluate(loadInPeaks, { format, payload })) });
    } catch (err) {
      problems.push(`${file}: ${err.message}`);
    }
    await tab.close();
  }
} finally {
  await browser.close();
}
console.log(JSON.stringify(results));
for (const problem of problems) console.error(problem);
process.exit(problems.length === 0 ? 0 : 1);
