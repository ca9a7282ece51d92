/**
 * `workers`: several `tessera serve` processes share one port (node:cluster); memory backends
 * are refused; SIGTERM to the primary drains every worker and the primary exits 0.
 */
import { expect } from "chai";
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { PostgresDatabase } from "../../src/adapters/postgres/postgres-database.js";
import { runCli } from "../support/cli-process.js";
import { databaseUrl, ensureDatabase } from "../support/postgres.js";
import { requireService } from "../support/services.js";
import { PROJECT_ROOT, settingsEnv, tesseraArgs } from "../support/tessera-process.js";

// The command-line suite's database (migrated again here): one database fewer to drop per run.
const DATABASE = "tessera_cli_test";
const AUTH = `Basic ${Buffer.from("alice:pw").toString("base64")}`;
const emptyConfig = ["--config", "/dev/null"];

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("workers setting", function () {
  this.timeout(40_000);

  it("refuses several workers with memory backends, and a workers value that is not a count", async () => {
    const memory = await runCli(["serve", ...emptyConfig], {
      resources: "articles:shareable",
      permission_backend: "memory",
      userid_hmac_secret: "s",
      workers: "2",
    });
    expect(memory.code).to.equal(2);
    expect(memory.stderr).to.contain("storage_backend").and.to.contain("workers");
    expect(memory.stdout).to.not.contain("listening");
    const zero = await runCli(["serve", ...emptyConfig], {
      resources: "articles:shareable",
      permission_backend: "memory",
      userid_hmac_secret: "s",
      workers: "0",
    });
    expect(zero.code).to.equal(2);
    expect(zero.stderr).to.contain("workers must be an integer");
  });

  it("refuses several workers while metrics are on (a scrape would reach one worker's counters)", async () => {
    const shared = {
      storage_backend: "postgresql",
      storage_url: "postgresql://h/db",
      resources: "notes:user",
      userid_hmac_secret: "s",
      workers: "2",
    };
    const refused = await runCli(["serve", ...emptyConfig], shared);
    expect(refused.code).to.equal(2);
    expect(refused.stderr).to.contain("metrics_enabled = false");
    expect(refused.stdout).to.not.contain("listening");
  });

  describe("on PostgreSQL", () => {
    requireService("postgresql");

    before(async () => {
      await ensureDatabase(DATABASE);
      const database = new PostgresDatabase({ url: databaseUrl(DATABASE) });
      await database.migrate();
      await database.close();
    });

    it("serves one port from two processes and drains both on SIGTERM", async () => {
      const settings = {
        resources: "articles:shareable",
        storage_backend: "postgresql",
        storage_url: databaseUrl(DATABASE),
        permission_backend: "postgresql",
        permission_url: databaseUrl(DATABASE),
        cache_backend: "postgresql",
        cache_url: databaseUrl(DATABASE),
        userid_hmac_secret: "s",
        articles_create_principals: "system.Authenticated",
        listen_port: "0",
        log_level: "info",
        metrics_enabled: "false",
        workers: "2",
      };
      const primary = spawn(process.execPath, tesseraArgs(["serve", ...emptyConfig]), {
        env: settingsEnv(settings),
        stdio: ["ignore", "pipe", "pipe"],
        cwd: PROJECT_ROOT,
      });
      const exited = new Promise<number | null>((resolve) => primary.once("exit", (code) => resolve(code)));
      try {
        // Each worker logs the shared URL; the primary names each worker that listens.
        const workers = await new Promise<{ pids: number[]; urls: string[] }>((resolve, reject) => {
          const found = { pids: [] as number[], urls: [] as string[] };
          const timer = setTimeout(() => reject(new Error("workers did not listen within 20 s")), 20_000);
          const check = () => {
            if (found.pids.length < 2 || found.urls.length < 2) return;
            clearTimeout(timer);
            resolve(found);
          };
          createInterface({ input: primary.stdout }).on("line", (line) => {
            const url = /"url":"([^"]+)","msg":"tessera listening"/.exec(line)?.[1];
            if (url) found.urls.push(url);
            check();
          });
          createInterface({ input: primary.stderr }).on("line", (line) => {
            const pid = /^worker (\d+) listening$/.exec(line)?.[1];
            if (pid) found.pids.push(Number(pid));
            check();
          });
        });
        const { pids, urls } = workers;
        expect(new Set(pids).size).to.equal(2);
        expect(pids).to.not.include(primary.pid);
        expect(urls[0]).to.equal(urls[1]);
        const url = urls[0];

        const statuses = await Promise.all(
          Array.from({ length: 10 }, async (_, n) => {
            const response = await fetch(`${url}/v1/articles`, {
              method: "POST",
              headers: { Authorization: AUTH, "Content-Type": "application/json" },
              body: JSON.stringify({ data: { n } }),
            });
            await response.arrayBuffer();
            return response.status;
          }),
        );
        expect(statuses).to.deep.equal(Array.from({ length: 10 }, () => 201));

        primary.kill("SIGTERM");
        expect(await exited).to.equal(0);
        expect(pids.filter(alive)).to.deep.equal([]);
      } finally {
        if (primary.exitCode === null) primary.kill("SIGKILL");
      }
    });
  });
});
