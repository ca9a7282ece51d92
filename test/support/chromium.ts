/** Debian's chromium for the browser tests: where it is, how it starts, and what to do without it. */
import { existsSync } from "node:fs";
import path from "node:path";
import { chromium, type Browser } from "playwright-core";
import { PROJECT_ROOT } from "./tessera-process.js";

/** Where the build puts the admin page's compiled scripts (the tests read them from there). */
export const BUILT_ADMIN_PAGE = path.join(PROJECT_ROOT, "dist/src/adapters/http/admin");

export const CHROMIUM = process.env.TESSERA_CHROMIUM ?? "/usr/bin/chromium";

/** Headless, and no background networking: this machine's closed network refuses those connections. */
const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** Without the browser: a failure under CI (it must run there), a skip with the way to install it elsewhere. */
export function requireChromium(test: { skip(): void }): void {
  if (existsSync(CHROMIUM)) return;
  if (process.env.CI)
    throw new Error(`no browser at ${CHROMIUM}: CI needs Debian's chromium (apt-get install -y chromium; .ci/run does it)`);
  console.log(`    (skipped: no browser at ${CHROMIUM}; apt-get install -y chromium, or set TESSERA_CHROMIUM)`);
  test.skip();
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: ARGS });
}

/** The admin page's compiled `file`: a failure under CI (it must run there), a skip with the way to build it elsewhere. */
export function requireBuiltAdminPage(test: { skip(): void }, file = "main.js"): void {
  if (existsSync(path.join(BUILT_ADMIN_PAGE, file))) return;
  if (process.env.CI) throw new Error("the admin page is not built");
  console.log("    (skipped: the admin page is not built; run npm run build)");
  test.skip();
}
