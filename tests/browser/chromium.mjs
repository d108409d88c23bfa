// The system's Chromium as the browser tests start it: where it is (PODHOST_CHROMIUM, default
// Debian's /usr/bin/chromium) and the flags that keep it headless and off the network it
// cannot reach (no background networking, no component updates, no sync). Never downloads a
// browser. `inEachView` runs a check in the views pages are checked in (desktop, phone, dark).

import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";

export const executablePath = process.env.PODHOST_CHROMIUM || "/usr/bin/chromium";

export const args = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  // Let audio elements load and report their metadata without a user gesture.
  "--autoplay-policy=no-user-gesture-required",
];

// The views a page is checked in: desktop, phone, dark.
export const VIEWS = [
  { suffix: "", viewport: { width: 1280, height: 900 }, colorScheme: "light" },
  { suffix: "-mobile", viewport: { width: 390, height: 844 }, colorScheme: "light", isMobile: true },
  { suffix: "-dark", viewport: { width: 1280, height: 900 }, colorScheme: "dark" },
];

// Runs `check(context, view)` in a browser of each view, each with a fresh profile (nothing
// cached from an earlier one), closed afterwards.
export async function inEachView(check, { locale } = {}) {
  for (const view of VIEWS) {
    const profile = await mkdtemp(join(tmpdir(), "podhost-chromium-"));
    const context = await chromium.launchPersistentContext(profile, {
      executablePath,
      headless: true,
      args,
      viewport: view.viewport,
      colorScheme: view.colorScheme,
      isMobile: view.isMobile ?? false,
      hasTouch: view.isMobile ?? false,
      deviceScaleFactor: 1,
      // The browser's language (navigator.language and Accept-Language), when one is asked.
      ...(locale ? { locale } : {}),
    });
    try {
      await check(context, view);
    } finally {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    }
  }
}

// Collects in `problems` what a listener's browser would show as wrong on `tab`: console
// errors (a refusal of the Content-Security-Policy is one), page errors, failed requests (but
// the media range requests the browser cancels once it has read enough) and answers of 400 and
// more.
export function watchProblems(tab, problems) {
  tab.on("console", (msg) => {
    if (msg.type() === "error") problems.push(`console error: ${msg.text()}`);
  });
  tab.on("pageerror", (err) => problems.push(`page error: ${err.message}`));
  tab.on("requestfailed", (req) => {
    const reason = req.failure()?.errorText ?? "";
    if (req.resourceType() === "media" && reason === "net::ERR_ABORTED") return;
    problems.push(`request failed: ${req.url()} (${reason})`);
  });
  tab.on("response", (res) => {
    if (res.status() >= 400) problems.push(`HTTP ${res.status()} for ${res.url()}`);
  });
}
