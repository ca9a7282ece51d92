/** W3's listing collections, seeded as each backend allows, and the request that lists them. */
import type { RequestSpec } from "autocannon";
import { listCollection, READER, seedListApi, seedListRedis, seedListSql } from "./seed.js";
import { checkedListing } from "./requests.js";
import type { WorkloadContext } from "./workloads.js";

/**
 * Seeds the size-N listing collection as the backend allows (`collection`: its name, a tree's
 * records list included) and checks the reader sees exactly its 100 shared records.
 */
export async function seedList(ctx: WorkloadContext, n: number, collection = listCollection(n)): Promise<RequestSpec> {
  let seconds: number;
  if (ctx.backend === "memory") seconds = await seedListApi(ctx.base, n, collection);
  else {
    if (ctx.backend === "redis" && collection !== listCollection(n)) throw new Error(`${collection}: seeded on PostgreSQL or memory only`);
    seconds = await seedListSql(ctx.sqlUrl ?? "", n, ctx.backend === "postgresql", collection);
    if (ctx.backend === "redis") seconds += await seedListRedis(ctx.redisUrl ?? "", n);
  }
  ctx.log(seconds > 0 ? `seeded ${collection} (${n} records) in ${seconds.toFixed(1)} s` : `${collection} already seeded`);
  return checkedListing(ctx.base, "W3", `/${collection}?_limit=100`, READER);
}
