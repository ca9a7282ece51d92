/**
 * `--peer parse`: Tessera (PostgreSQL) and Parse Server side by side, workload by workload
 * (Tessera, then Parse, then the next workload), each on a fresh database of the same server,
 * and the ratio per workload. W3 is measured twice: cold (data just written through each API,
 * statistics never gathered) and after `ANALYZE`.
 */
import { measure, type LoadSettings, type Measurement } from "./load.js";
import { ensureParseInstalled, ParsePeer, PARSE_VERSION, startParse } from "./parse-peer.js";
import {
  api,
  authorization,
  databaseUrl,
  listCollection,
  READER,
  recreateDatabase,
  seedListApi,
  SHARED_COUNT,
  withClient,
} from "./seed.js";
import type { ServerProcess } from "./server-process.js";
import { PREPARE, type Figure, type WorkloadName } from "./workloads.js";

export const PEER_WORKLOADS = ["W1", "W2", "W3", "W5"] as const;

const TESSERA_DATABASE = "tessera_bench_peer_tessera";
const PARSE_DATABASE = "tessera_bench_peer_parse";

export interface PeerOptions {
  readonly workloads: readonly WorkloadName[];
  readonly connections: number;
  readonly load: LoadSettings;
  /** The PostgreSQL server (any database): both peers get a fresh database there. */
  readonly postgres: string;
  readonly buildDir: string;
  /** Migrates the database and starts `tessera serve` on it (PostgreSQL storage and permissions). */
  readonly startTessera: (database: string) => Promise<ServerProcess>;
  readonly log: (line: string) => void;
  /** Koa hello's req/s in the same run, when measured: each Tessera figure is then shown as a share of it too. */
  readonly koaHello?: number;
}

/** Tessera's W3 data written through its API (no bulk SQL, no ANALYZE), checked as W3 does. */
async function tesseraListing(base: string, log: (line: string) => void): Promise<Figure> {
  const seconds = await seedListApi(base, 10_000);
  log(`tessera: seeded ${listCollection(10_000)} through the API in ${seconds.toFixed(1)} s`);
  const path = `/${listCollection(10_000)}?_limit=100`;
  const check = await api(base, "GET", path, READER);
  const count = (check.json as { data?: unknown[] } | undefined)?.data?.length;
  if (check.status !== 200 || count !== SHARED_COUNT) throw new Error(`tessera W3 check: ${check.status}, ${count} records`);
  return {
    label: "W3",
    connections: 0,
    requests: [{ method: "GET", path: `/v1${path}`, headers: { Authorization: authorization(READER) } }],
  };
}

export async function runParsePeer(options: PeerOptions, print: (m: Measurement) => void): Promise<void> {
  const { log, connections } = options;
  ensureParseInstalled(log);
  const workloads = PEER_WORKLOADS.filter((w) => options.workloads.includes(w));
  await recreateDatabase(options.postgres, TESSERA_DATABASE);
  await recreateDatabase(options.postgres, PARSE_DATABASE);
  const tesseraUrl = databaseUrl(options.postgres, TESSERA_DATABASE);
  const parseUrl = databaseUrl(options.postgres, PARSE_DATABASE);
  const tessera = await options.startTessera(TESSERA_DATABASE);
  let parse: ServerProcess | undefined;
  const pairs: { label: string; tessera: Measurement; parse: Measurement }[] = [];
  const run = async (label: string, tesseraFigure: Figure | undefined, parseFigure: Figure | undefined) => {
    if (!tesseraFigure || !parseFigure) throw new Error(`no figure to measure for ${label}`);
    const t = await measure(tessera, "postgresql", { ...tesseraFigure, label: `tessera ${label}`, connections }, options.load);
    print(t);
    const p = await measure(parse as ServerProcess, "postgresql", { ...parseFigure, label: `parse ${label}`, connections }, options.load);
    print(p);
    pairs.push({ label, tessera: t, parse: p });
  };
  try {
    parse = await startParse(options.buildDir, parseUrl);
    const peer = new ParsePeer(parse);
    await peer.setUp();
    const ctx = {
      base: tessera.url,
      backend: "postgresql" as const,
      connections,
      sizes: [10_000],
      sqlUrl: tesseraUrl,
      redisUrl: undefined,
      log,
    };
    for (const workload of workloads) {
      if (workload === "W3") {
        const tesseraFigure = await tesseraListing(tessera.url, log);
        log(`parse: seeded List through the API in ${(await peer.seedList()).toFixed(1)} s`);
        const [parseFigure] = await peer.figures("W3", connections);
        await run("W3 cold", tesseraFigure, parseFigure);
        for (const url of [tesseraUrl, parseUrl]) await withClient(url, (client) => client.query("ANALYZE"));
        await run("W3 analyzed", tesseraFigure, parseFigure);
        continue;
      }
      const [tesseraFigure] = await PREPARE[workload](ctx);
      const [parseFigure] = await peer.figures(workload, connections);
      await run(workload, tesseraFigure, parseFigure);
    }
  } finally {
    await parse?.stop();
    await tessera.stop();
  }
  console.log(
    `\nTessera vs Parse Server ${PARSE_VERSION}, same run, c=${connections}, ${options.load.duration} s each after ${options.load.warmup} s warm-up`,
  );
  const { koaHello } = options;
  console.log(
    `workload        tessera req/s  parse req/s   ratio  tessera p99  parse p99  tessera non-2xx  parse non-2xx${koaHello ? "  tessera / koa hello" : ""}`,
  );
  for (const { label, tessera: t, parse: p } of pairs) {
    const ratio = p.requestsPerSecond > 0 ? (t.requestsPerSecond / p.requestsPerSecond).toFixed(2) : "-";
    const share = koaHello ? `${((100 * t.requestsPerSecond) / koaHello).toFixed(1).padStart(19)} %` : "";
    console.log(
      `${label.padEnd(15)} ${t.requestsPerSecond.toFixed(0).padStart(13)} ${p.requestsPerSecond.toFixed(0).padStart(12)} ${ratio.padStart(7)} ${t.p99.toFixed(1).padStart(12)} ${p.p99.toFixed(1).padStart(10)} ${String(t.non2xx + t.errors).padStart(16)} ${String(p.non2xx + p.errors).padStart(14)}${share}`,
    );
  }
}
