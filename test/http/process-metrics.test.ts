/**
 * Process metrics (prom-client's defaults) are collected from startup, not from the first
 * scrape: a garbage collection that happens before any scrape is counted. Run in a process of
 * its own (with `--expose-gc`), since these metrics are process-wide.
 */
import { spawn } from "node:child_process";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { expect } from "chai";
import { PROJECT_ROOT } from "../support/tessera-process.js";

// From dist, or from sources with tsx (npm run test:ts).
const fromSources = import.meta.url.endsWith(".ts");
const productModule = (relative: string) =>
  JSON.stringify(pathToFileURL(path.join(PROJECT_ROOT, ...(fromSources ? [relative.replace(/\.js$/, ".ts")] : ["dist", relative]))).href);

/** Starts a server, forces a major GC, waits until GC entries are delivered, then scrapes once. */
const SCRIPT = `
import "reflect-metadata";
import { PerformanceObserver } from "node:perf_hooks";
import { pino } from "pino";
import { startServer } from ${productModule("src/bootstrap/server.js")};
import { loadSettings } from ${productModule("src/bootstrap/settings.js")};
const settings = loadSettings({ argv: [], env: { TESSERA_LISTEN_PORT: "0", TESSERA_RESOURCES: "notes:user", TESSERA_USERID_HMAC_SECRET: "s" }, defaultFile: false });
const running = await startServer(settings, { logger: pino({ level: "silent" }) });
// Entries reach every GC observer in the same dispatch: once this one saw the GC, prom-client's did too.
const seen = new Promise((resolve) => {
  const observer = new PerformanceObserver(() => { observer.disconnect(); resolve(); });
  observer.observe({ entryTypes: ["gc"] });
});
globalThis.gc();
await seen;
process.stdout.write(await (await fetch(running.url + "/v1/__metrics__")).text());
await running.stop();
`;

function runScript(): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [...(fromSources ? ["--import", "tsx"] : []), "--expose-gc", "--input-type=module", "-e", SCRIPT], {
    cwd: PROJECT_ROOT,
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
}

describe("process metrics", function () {
  this.timeout(60_000); // from sources, tsx compiles the whole application in the child first

  it("count a garbage collection that happened before the first scrape", async () => {
    const { code, stdout, stderr } = await runScript();
    expect(code, stderr).to.equal(0);
    const collections = [...stdout.matchAll(/^nodejs_gc_duration_seconds_count\{kind="(\w+)"\} (\d+)$/gm)];
    const total = collections.reduce((sum, match) => sum + Number(match[2]), 0);
    expect(
      total,
      stdout
        .split("\n")
        .filter((line) => line.startsWith("nodejs_gc"))
        .join("\n"),
    ).to.be.greaterThan(0);
  });
});
