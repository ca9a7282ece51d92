/** The requests the workloads send under load, and the checks of their set-up answers. */
import type { RequestSpec } from "autocannon";
import { api, authorization, SHARED_COUNT } from "./seed.js";

/** A request as `credentials`, with a JSON body when one is given. */
export function json(method: string, path: string, credentials: string, body?: unknown): RequestSpec {
  return {
    method,
    path,
    headers: { Authorization: authorization(credentials), ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  };
}

export function expectStatus(what: string, status: number, expected: number[]): void {
  if (!expected.includes(status)) throw new Error(`${what}: expected ${expected.join(" or ")}, got ${status}`);
}

/** The listing of `path` (under /v1, `?_limit=100`) as `credentials`, once checked to answer exactly 100 records. */
export async function checkedListing(base: string, what: string, path: string, credentials: string): Promise<RequestSpec> {
  const check = await api(base, "GET", path, credentials);
  const count = (check.json as { data?: unknown[] } | undefined)?.data?.length;
  if (check.status !== 200 || count !== SHARED_COUNT)
    throw new Error(`${what} check on ${path}: status ${check.status}, ${count} records instead of ${SHARED_COUNT}`);
  return json("GET", `/v1${path}`, credentials);
}
