// The system's Chromium as the browser tests start it: where it is (PODHOST_CHROMIUM, default
// Debian's /usr/bin/chromium) and the flags that keep it headless and off the network it
// cannot reach (no background networking, no component updates, no sync). Never downloads a
// browser.

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
