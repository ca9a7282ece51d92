/**
 * The workloads (docs/benchmarks.md): each prepares its data on a running server and returns the
 * figures to measure, as autocannon requests. Every workload checks once, before the load, that
 * its request does what it claims (status, number of records), so a figure never measures errors.
 */
import type { RequestSpec } from "autocannon";
import { api, clearCollectionSql, listCollection, OWNER, recordData } from "./seed.js";
import { ifMatchPatches } from "./if-match-patches.js";
import { seedList } from "./list-seed.js";
import { NESTED_READER, seedNestedRedis, seedNestedSql } from "./nested-groups.js";
import { checkedListing, expectStatus, json } from "./requests.js";
import { TREE_PREPARE, TREE_WORKLOADS } from "./tree-workloads.js";
import { FEED_SCALE_WORKLOADS, type FeedScaleWorkload } from "./feed-scale.js";

export type BackendName = "memory" | "postgresql" | "redis";
/** W8A, W8B, W8I (the live feed at scale, feed-scale.ts) start servers of their own: run.ts runs them apart. */
export const WORKLOADS = ["W1", "W2", "W3", "W4", "W4N", "W5", "W6", ...TREE_WORKLOADS, ...FEED_SCALE_WORKLOADS] as const;
export type WorkloadName = (typeof WORKLOADS)[number];
/** The workloads measured as autocannon figures on one server (PREPARE). */
export type FigureWorkload = Exclude<WorkloadName, FeedScaleWorkload>;

export interface Figure {
  /** `W3`, `W4 1000000`... */
  readonly label: string;
  readonly connections: number;
  readonly requests: RequestSpec[];
  /** Sub-requests of a batch that failed, counted by the workload itself (W6). */
  readonly rejectedInside?: () => number;
  /** Called before the warm-up and before the measured run. */
  readonly beforeRun?: () => Promise<void>;
}

export interface WorkloadContext {
  readonly base: string;
  readonly backend: BackendName;
  readonly connections: number;
  readonly sizes: readonly number[];
  /** The bench database (postgresql and redis backends). */
  readonly sqlUrl: string | undefined;
  readonly redisUrl: string | undefined;
  readonly log: (line: string) => void;
}

/** Collections written by W2/W6, emptied before each run on PostgreSQL. */
const WRITES = "writes";

/** The collections a run declares (all shareable, creatable by any authenticated user). */
export function collectionsFor(sizes: readonly number[]): string[] {
  return ["articles", WRITES, ...new Set([10_000, ...sizes].map(listCollection))];
}

async function w1(ctx: WorkloadContext): Promise<Figure[]> {
  await clear(ctx, "articles");
  const put = await api(ctx.base, "PUT", "/articles/w1-record", OWNER, { data: recordData(1) });
  expectStatus("W1 set-up", put.status, [200, 201]);
  const get = await api(ctx.base, "GET", "/articles/w1-record", OWNER);
  expectStatus("W1 check", get.status, [200]);
  return [{ label: "W1", connections: ctx.connections, requests: [json("GET", "/v1/articles/w1-record", OWNER)] }];
}

/**
 * Empties a collection the workloads write on PostgreSQL, so tables do not grow run after run and
 * records left by a run on another permission backend (whose ACEs live elsewhere) do not answer 403.
 */
async function clear(ctx: WorkloadContext, collection: string): Promise<void> {
  if (ctx.sqlUrl) await clearCollectionSql(ctx.sqlUrl, collection, ctx.backend === "postgresql");
}

async function w2(ctx: WorkloadContext): Promise<Figure[]> {
  await clear(ctx, WRITES);
  const body = { data: recordData(1) };
  ctx.log(`W2 body: ${JSON.stringify(body).length} bytes`);
  const check = await api(ctx.base, "POST", `/${WRITES}`, OWNER, body);
  expectStatus("W2 check", check.status, [201]);
  return [{ label: "W2", connections: ctx.connections, requests: [json("POST", `/v1/${WRITES}`, OWNER, body)] }];
}

async function w3(ctx: WorkloadContext): Promise<Figure[]> {
  return [{ label: "W3", connections: ctx.connections, requests: [await seedList(ctx, 10_000)] }];
}

async function w4(ctx: WorkloadContext): Promise<Figure[]> {
  const figures: Figure[] = [];
  for (const n of ctx.sizes) {
    const request = await seedList(ctx, n);
    for (const connections of [1, 8]) figures.push({ label: `W4 ${n}`, connections, requests: [request] });
  }
  return figures;
}

/** W4 read by a caller holding the shared records through nested groups (bench/nested-groups.ts). */
async function w4n(ctx: WorkloadContext): Promise<Figure[]> {
  if (ctx.backend === "memory") {
    ctx.log("W4N: skipped on memory (group links cannot be seeded from outside the server)");
    return [];
  }
  const figures: Figure[] = [];
  for (const n of ctx.sizes) {
    await seedList(ctx, n);
    if (ctx.backend === "postgresql") await seedNestedSql(ctx.sqlUrl ?? "", n);
    else await seedNestedRedis(ctx.redisUrl ?? "", n);
    const request = await checkedListing(ctx.base, "W4N", `/${listCollection(n)}?_limit=100`, NESTED_READER);
    for (const connections of [1, 8]) figures.push({ label: `W4N ${n}`, connections, requests: [request] });
  }
  return figures;
}

async function w5(ctx: WorkloadContext): Promise<Figure[]> {
  await clear(ctx, "articles");
  return [await ifMatchPatches(ctx, { label: "W5", list: "/articles", prefix: "w5-", credentials: OWNER })];
}

async function w6(ctx: WorkloadContext): Promise<Figure[]> {
  await clear(ctx, WRITES);
  const body = {
    defaults: { method: "POST", path: `/${WRITES}` },
    requests: Array.from({ length: 10 }, (_, i) => ({ body: { data: recordData(i + 1) } })),
  };
  const check = await api(ctx.base, "POST", "/batch", OWNER, body);
  const statuses = (check.json as { responses?: { status: number }[] } | undefined)?.responses?.map((r) => r.status) ?? [];
  if (check.status !== 200 || statuses.length !== 10 || statuses.some((s) => s !== 201))
    throw new Error(`W6 check: ${check.status} ${statuses.join(",")}`);
  let rejected = 0;
  const request: RequestSpec = {
    ...json("POST", "/v1/batch", OWNER, body),
    onResponse(status, responseBody) {
      if (status !== 200) return;
      const parsed = JSON.parse(responseBody) as { responses?: { status: number }[] };
      rejected += parsed.responses?.filter((r) => r.status >= 300).length ?? 0;
    },
  };
  return [{ label: "W6", connections: ctx.connections, requests: [request], rejectedInside: () => rejected }];
}

export const PREPARE: Record<FigureWorkload, (ctx: WorkloadContext) => Promise<Figure[]>> = {
  W1: w1,
  W2: w2,
  W3: w3,
  W4: w4,
  W4N: w4n,
  W5: w5,
  W6: w6,
  ...TREE_PREPARE,
};
