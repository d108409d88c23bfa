// axe-core (npm, pinned in package.json) run in a page or a frame as it is shown: the WCAG 2.0
// and 2.1 rules of levels A and AA. Injected through the browser's DevTools evaluation, which a
// page's Content-Security-Policy does not govern, so the pages are checked with the policy they
// are served with.

import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const source = readFile(require.resolve("axe-core/axe.min.js"), "utf8");

/** The rules' tags checked: WCAG 2.1 AA (with the 2.0 rules it includes). */
export const WCAG_21_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"];

/**
 * The WCAG 2.1 AA violations axe-core finds in `target` (a playwright Page or Frame), each as
 * one line: the rule, what it asks, and the elements that break it.
 */
export async function axeViolations(target) {
  await target.evaluate(await source);
  const results = await target.evaluate(
    (tags) => window.axe.run(document, { runOnly: { type: "tag", values: tags }, resultTypes: ["violations"] }),
    WCAG_21_AA,
  );
  return results.violations.map(
    (v) => `axe ${v.id} (${v.impact}): ${v.help}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`,
  );
}
