/**
 * W5's load: each connection PATCHes its own record with the ETag of its last answer in
 * `If-Match`, so no update is ever refused by a concurrent one (a 412 would be a real bug).
 */
import type { RequestSpec } from "autocannon";
import { api, authorization, OWNER, recordData } from "./seed.js";
import { expectStatus } from "./requests.js";
import type { Figure, WorkloadContext } from "./workloads.js";

export interface PatchLoad {
  readonly label: string;
  /** The records list under /v1 (`/articles`); one record per connection is written there by the owner first. */
  readonly list: string;
  /** Record ids: `${prefix}${connection}`. */
  readonly prefix: string;
  /** Who PATCHes (the owner, or a caller holding `write` some other way). */
  readonly credentials: string;
}

/** Per-connection state rides on the request object, which autocannon copies per connection. */
interface PatchState {
  entry?: { id: string; etag: string };
  n?: number;
}

export async function ifMatchPatches(ctx: WorkloadContext, load: PatchLoad): Promise<Figure> {
  const pool: { id: string; etag: string }[] = [];
  for (let i = 0; i < ctx.connections; i++) {
    const id = `${load.prefix}${i}`;
    const put = await api(ctx.base, "PUT", `${load.list}/${id}`, OWNER, { data: recordData(i) });
    expectStatus(`${load.label} set-up`, put.status, [200, 201]);
    pool.push({ id, etag: put.etag ?? "" });
  }
  let handedOut = 0;
  const headers = { Authorization: authorization(load.credentials), "Content-Type": "application/json" };
  const request: RequestSpec = {
    method: "PATCH",
    state: {},
    setupRequest(req, context) {
      const state = req.state as PatchState;
      if (state.entry === undefined) {
        state.entry = pool[handedOut++ % pool.length];
        if (!state.entry) throw new Error(`${load.label}: no record for this connection`);
      }
      state.n = (state.n ?? 0) + 1;
      context.state = state;
      return {
        ...req,
        path: `/v1${load.list}/${state.entry.id}`,
        headers: { ...headers, "If-Match": state.entry.etag },
        body: JSON.stringify({ data: { priority: state.n } }),
      };
    },
    onResponse(_status, _body, context, responseHeaders) {
      const entry = (context.state as PatchState | undefined)?.entry;
      const etag = responseHeaders.etag ?? responseHeaders.ETag;
      if (entry && typeof etag === "string") entry.etag = etag;
    },
  };
  const readEtags = async () => {
    const etags: string[] = [];
    for (const entry of pool) etags.push((await api(ctx.base, "GET", `${load.list}/${entry.id}`, load.credentials)).etag ?? "");
    return etags;
  };
  // A run cut short may leave PATCHes in flight, longer than any fixed pause when the server is
  // slow: re-read every ETag until two reads 200 ms apart agree, so no 412 is the harness's own.
  const beforeRun = async () => {
    handedOut = 0;
    let previous: string[] = [];
    for (let settled = false; !settled;) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      const etags = await readEtags();
      settled = etags.every((etag, i) => etag === previous[i]);
      previous = etags;
    }
    pool.forEach((entry, i) => (entry.etag = previous[i] ?? ""));
  };
  const check = await api(ctx.base, "PATCH", `${load.list}/${pool[0]?.id}`, load.credentials, { data: { priority: 0 } });
  expectStatus(`${load.label} check`, check.status, [200]);
  return { label: load.label, connections: ctx.connections, requests: [request], beforeRun };
}
