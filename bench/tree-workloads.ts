/**
 * W1, W3, W4 and W5 on Kinto's tree (docs/benchmarks.md, "The tree workloads"): the same requests
 * on a records list of the tree (`/buckets/bench-tree/collections/c/records`), by callers holding
 * no ACE on the records themselves: their permission comes from the collection's ACL (`coll`),
 * from a group of the bucket named there (`group`) or, for W4T, from the bucket's ACL (`bucket`).
 * W3T also lists as W3's reader (`record`: the 100 records shared one by one, W3's own shape).
 * The bucket, its group and its collections go through the API; the listing collections' records
 * through W3's seeding, under the tree list's name. The memory and Redis backends run W1T and W5T
 * only (their records cannot be seeded under a tree name from outside the server).
 */
import { seedList } from "./list-seed.js";
import { ifMatchPatches } from "./if-match-patches.js";
import { checkedListing, expectStatus, json } from "./requests.js";
import { api, listCollection, OWNER, principalOf, READER, recordData } from "./seed.js";
import type { Figure, WorkloadContext } from "./workloads.js";

export const TREE_WORKLOADS = ["W1T", "W3T", "W4T", "W5T"] as const;
type TreeWorkloadName = (typeof TREE_WORKLOADS)[number];

const BUCKET = `/buckets/bench-tree`;
/** A group of the bucket: its URI is the principal its members hold. */
const GROUP = `${BUCKET}/groups/bench-members`;

/** Named in the collections' ACLs. */
const COLLECTION_USER = "bob:bench-password";
/** A member of GROUP, which the collections' ACLs name. */
const GROUP_USER = "carol:bench-password";
/** Named in the bucket's `read` ACL. */
const BUCKET_USER = "dave:bench-password";

/** The callers of a figure, by where their permission comes from. */
const THROUGH_COLLECTION_OR_GROUP: ReadonlyArray<readonly [string, string]> = [
  ["coll", COLLECTION_USER],
  ["group", GROUP_USER],
];

/** The bucket (readable by BUCKET_USER) and its group (GROUP_USER), owned by the owner. */
async function putBucket(ctx: WorkloadContext): Promise<void> {
  const bucket = await api(ctx.base, "PUT", BUCKET, OWNER, { permissions: { read: [principalOf(BUCKET_USER)] } });
  expectStatus("tree bucket", bucket.status, [200, 201]);
  const group = await api(ctx.base, "PUT", GROUP, OWNER, { data: { members: [principalOf(GROUP_USER)] } });
  expectStatus("tree group", group.status, [200, 201]);
}

/** A collection of the bucket whose ACL gives `permission` to COLLECTION_USER and to GROUP; returns its records list. */
async function putCollection(ctx: WorkloadContext, id: string, permission: "read" | "write"): Promise<string> {
  await putBucket(ctx);
  const uri = `${BUCKET}/collections/${id}`;
  const put = await api(ctx.base, "PUT", uri, OWNER, { permissions: { [permission]: [principalOf(COLLECTION_USER), GROUP] } });
  expectStatus(`tree collection ${id}`, put.status, [200, 201]);
  return `${uri}/records`;
}

async function w1t(ctx: WorkloadContext): Promise<Figure[]> {
  const record = `${await putCollection(ctx, "articles", "read")}/w1-record`;
  const put = await api(ctx.base, "PUT", record, OWNER, { data: recordData(1) });
  expectStatus("W1T set-up", put.status, [200, 201]);
  const figures: Figure[] = [];
  for (const [via, user] of THROUGH_COLLECTION_OR_GROUP) {
    expectStatus(`W1T ${via} check`, (await api(ctx.base, "GET", record, user)).status, [200]);
    figures.push({ label: `W1T ${via}`, connections: ctx.connections, requests: [json("GET", `/v1${record}`, user)] });
  }
  return figures;
}

/** The size-N listing collection of the tree, seeded like W3's; returns its listing path (`?_limit=100`). */
async function treeList(ctx: WorkloadContext, n: number): Promise<string> {
  const records = await putCollection(ctx, listCollection(n), "read");
  await seedList(ctx, n, records.slice(1));
  return `${records}?_limit=100`;
}

/** Records seeded in SQL: PostgreSQL only. */
function seededInSql(ctx: WorkloadContext, workload: string): boolean {
  if (ctx.backend !== "postgresql") ctx.log(`${workload}: skipped on ${ctx.backend} (the tree's listings are seeded on PostgreSQL)`);
  return ctx.backend === "postgresql";
}

async function w3t(ctx: WorkloadContext): Promise<Figure[]> {
  if (!seededInSql(ctx, "W3T")) return [];
  const path = await treeList(ctx, 10_000);
  const figures: Figure[] = [];
  for (const [via, user] of THROUGH_COLLECTION_OR_GROUP)
    figures.push({
      label: `W3T ${via}`,
      connections: ctx.connections,
      requests: [await checkedListing(ctx.base, `W3T ${via}`, path, user)],
    });
  // seedList checked it already: W3's reader, holding each of 100 records through its own ACE.
  figures.push({
    label: "W3T record",
    connections: ctx.connections,
    requests: [await checkedListing(ctx.base, "W3T record", path, READER)],
  });
  return figures;
}

async function w4t(ctx: WorkloadContext): Promise<Figure[]> {
  if (!seededInSql(ctx, "W4T")) return [];
  const figures: Figure[] = [];
  for (const n of ctx.sizes) {
    const path = await treeList(ctx, n);
    for (const [via, user] of [...THROUGH_COLLECTION_OR_GROUP, ["bucket", BUCKET_USER] as const]) {
      const request = await checkedListing(ctx.base, `W4T ${via}`, path, user);
      for (const connections of [1, 8]) figures.push({ label: `W4T ${via} ${n}`, connections, requests: [request] });
    }
  }
  return figures;
}

async function w5t(ctx: WorkloadContext): Promise<Figure[]> {
  const list = await putCollection(ctx, "edits", "write");
  const figures: Figure[] = [];
  for (const [via, user] of THROUGH_COLLECTION_OR_GROUP)
    figures.push(await ifMatchPatches(ctx, { label: `W5T ${via}`, list, prefix: `w5-${via}-`, credentials: user }));
  return figures;
}

export const TREE_PREPARE: Record<TreeWorkloadName, (ctx: WorkloadContext) => Promise<Figure[]>> = {
  W1T: w1t,
  W3T: w3t,
  W4T: w4t,
  W5T: w5t,
};
