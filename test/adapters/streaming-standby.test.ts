/**
 * The streaming standby that replica tests and benchmarks run on: a real hot standby of a primary
 * of the test's own, which replays what the primary writes, refuses writes, can fall behind, go
 * away and be promoted, and leaves no server running once closed or once its process is killed.
 */
import { expect } from "chai";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import pg from "pg";
import { localPostgres } from "../support/local-postgres.js";
import { sweepAbandonedClusters } from "../support/owned-clusters.js";
import { type StreamingPair, startStreamingPair } from "../support/streaming-standby.js";
import { requireStreamingStandby } from "../support/streaming-standby-required.js";

async function query(url: string, sql: string, params: unknown[] = []): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await client.query(sql, params);
  } finally {
    await client.end();
  }
}

async function names(url: string): Promise<string[]> {
  return (await query(url, "SELECT name FROM items ORDER BY name")).rows.map((row: { name: string }) => row.name);
}

async function accepts(url: string): Promise<boolean> {
  try {
    await query(url, "SELECT 1");
    return true;
  } catch {
    return false;
  }
}

async function failureCode(work: Promise<unknown>): Promise<string | undefined> {
  try {
    await work;
  } catch (error) {
    return (error as { code?: string }).code;
  }
  return undefined;
}

async function failure(work: Promise<unknown>): Promise<string> {
  try {
    await work;
  } catch (error) {
    return (error as Error).message;
  }
  return "no failure";
}

const fromSources = import.meta.url.endsWith(".ts");

/** Starts a pair in a process of its own and kills that process outright, as a crashed test run dies. */
async function pairOfKilledProcess(): Promise<{ directory: string; primaryUrl: string; standbyUrl: string }> {
  const module = new URL(`../support/streaming-standby.${fromSources ? "ts" : "js"}`, import.meta.url).href;
  const script = `
    const { startStreamingPair } = await import(${JSON.stringify(module)});
    const pair = await startStreamingPair({ database: "orphaned" });
    const { directory, primaryUrl, standbyUrl } = pair;
    process.stdout.write(JSON.stringify({ directory, primaryUrl, standbyUrl }) + "\\n");
    setInterval(() => undefined, 60_000);`;
  const child = spawn(process.execPath, [...(fromSources ? ["--import", "tsx"] : []), "--input-type=module", "-e", script]);
  let output = "";
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const line = await new Promise<string>((resolve, reject) => {
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes("\n")) resolve(output);
    });
    child.once("exit", (code) => reject(new Error(`the child ended (${code}) before starting its pair: ${output}`)));
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGKILL");
  await exited;
  return JSON.parse(line) as { directory: string; primaryUrl: string; standbyUrl: string };
}

describe("streaming standby for replica tests (a primary and hot standby of our own)", function () {
  this.timeout(60_000);
  requireStreamingStandby();

  let pair: StreamingPair;
  before(async () => {
    pair = await startStreamingPair({ database: "standby_check", name: "standby-check" });
    await query(pair.primaryUrl, "CREATE TABLE items (name text PRIMARY KEY)");
  });
  after(() => pair?.close());

  it("replays a table and rows written on the primary once caught up", async () => {
    await query(pair.primaryUrl, "INSERT INTO items VALUES ('first')");
    // Megabytes of WAL: replaying them takes long enough that only a real wait sees them all.
    await query(pair.primaryUrl, "CREATE TABLE bulk AS SELECT n, repeat('x', 100) AS filler FROM generate_series(1, 50000) AS n");
    await pair.caughtUp();
    expect(await names(pair.standbyUrl)).to.deep.equal(["first"]);
    expect((await query(pair.standbyUrl, "SELECT count(*)::int AS rows FROM bulk")).rows).to.deep.equal([{ rows: 50000 }]);
    expect(await pair.lagBytes()).to.equal(0);
  });

  it("refuses writes on the standby as a read-only transaction", async () => {
    expect(await failureCode(query(pair.standbyUrl, "INSERT INTO items VALUES ('on the standby')"))).to.equal("25006");
    expect(await names(pair.standbyUrl)).to.not.include("on the standby");
  });

  it("holds a new row back while replay is paused, and shows it once resumed", async () => {
    await pair.pauseReplay();
    await query(pair.primaryUrl, "INSERT INTO items VALUES ('while paused')");
    // Streaming is a matter of milliseconds; a paused standby must still lack the row well after that.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await names(pair.standbyUrl)).to.not.include("while paused");
    expect(await pair.lagBytes()).to.be.greaterThan(0);
    expect(await failure(pair.caughtUp(200)), "received is not replayed").to.match(/still \d+ bytes behind/);
    await pair.resumeReplay();
    await pair.caughtUp();
    expect(await names(pair.standbyUrl)).to.include("while paused");
  });

  it("catches up with what the primary wrote while the standby was stopped", async () => {
    await pair.stopStandby();
    expect(await accepts(pair.standbyUrl)).to.equal(false);
    await query(pair.primaryUrl, "INSERT INTO items VALUES ('while stopped')");
    await pair.startStandby();
    await pair.caughtUp();
    expect(await names(pair.standbyUrl)).to.include("while stopped");
  });

  it("shares the servers between starts of one name, each with its own database on both", async () => {
    const second = await startStreamingPair({ database: "standby_check_second", name: "standby-check" });
    try {
      expect(second.directory).to.equal(pair.directory);
      await query(second.primaryUrl, "CREATE TABLE items (name text)");
      await query(second.primaryUrl, "INSERT INTO items VALUES ('second database')");
      await second.caughtUp();
      expect(await names(second.standbyUrl)).to.deep.equal(["second database"]);
    } finally {
      await second.close();
    }
    expect(await accepts(pair.standbyUrl), "the first user still holds the servers").to.equal(true);
  });

  it("takes writes on the standby once promoted, and then replicates nothing", async () => {
    await pair.promote();
    await query(pair.standbyUrl, "INSERT INTO items VALUES ('after promotion')");
    await query(pair.primaryUrl, "INSERT INTO items VALUES ('primary after promotion')");
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await names(pair.standbyUrl))
      .to.include("after promotion")
      .and.not.include("primary after promotion");

    const next = await startStreamingPair({ database: "standby_check", name: "standby-check" });
    try {
      expect(next.directory, "a start after the promotion gets a new pair").to.not.equal(pair.directory);
      expect((await query(next.standbyUrl, "SELECT pg_is_in_recovery() AS standby")).rows).to.deep.equal([{ standby: true }]);
    } finally {
      await next.close();
    }
  });

  it("stops both servers and removes the directory on the last close", async () => {
    await pair.close();
    expect(await accepts(pair.primaryUrl)).to.equal(false);
    expect(await accepts(pair.standbyUrl)).to.equal(false);
    expect(existsSync(pair.directory)).to.equal(false);
  });

  it("stops and removes the servers of a process that was killed, on the next sweep", async () => {
    const orphan = await pairOfKilledProcess();
    expect(await accepts(orphan.standbyUrl), "servers outlive the process that started them").to.equal(true);
    const postgres = await localPostgres();
    if (typeof postgres === "string") throw new Error(postgres);
    sweepAbandonedClusters(postgres);
    expect(await accepts(orphan.primaryUrl)).to.equal(false);
    expect(await accepts(orphan.standbyUrl)).to.equal(false);
    expect(existsSync(orphan.directory)).to.equal(false);
  });
});
