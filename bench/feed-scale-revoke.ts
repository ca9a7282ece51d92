/**
 * W8A's lost access: during a run at a fixed rate, some users are taken out of the group that
 * shares every record with them (a PUT of the group's members, halfway). Exactly they must get a
 * `delete` for every record whose write was answered before the removal was sent, no `delete`
 * twice or for a record never written (a write in flight during the removal may go either way),
 * and nothing else after their first `delete`; everyone else gets no `delete` and every record
 * (revoke-check.ts). Waits up to a minute after the writes for every stream to have what it is
 * owed, and reports how long that took.
 */
import { settle, type ScaleContext } from "./feed-scale-context.js";
import type { ScaleServer } from "./feed-scale-servers.js";
import { startUsage } from "./feed-scale-usage.js";
import type { OpenLoopWriter } from "./open-loop-writer.js";
import { expectStatus } from "./requests.js";
import { judgeRevoke, type RevokeFacts } from "./revoke-check.js";
import { api, OWNER } from "./seed.js";
import type { SubscriberThread } from "./subscriber-thread.js";

/** The group every W8A record is shared with for reading; its members are the subscribers. */
export const FAN_GROUP = "fans";
/** How long after its writes a revoke run waits for every stream to have what it is owed. */
const EXACT_WAIT_MS = 60_000;

export async function putGroup(server: ScaleServer, members: readonly string[]): Promise<void> {
  const answer = await api(server.url, "PUT", `/groups/${FAN_GROUP}`, OWNER, { data: { members } });
  expectStatus("W8A group", answer.status, [200, 201]);
}

/** The target rate again, `removing` taken out of the group halfway; then who got what. */
export async function revoke(
  when: "early" | "late",
  ctx: ScaleContext,
  server: ScaleServer,
  subscribers: SubscriberThread,
  writer: OpenLoopWriter,
  principals: readonly string[],
  removing: readonly string[],
  rate: number,
): Promise<void> {
  const gone = new Set(removing);
  const kept = principals.filter((p) => !gone.has(p));
  const removed = removing.length;
  await settle(subscribers, 1000, 120_000);
  await subscribers.reset();
  let removalSent = 0;
  let removalAnswered = 0;
  const usage = await startUsage(server);
  const run = await writer.run(rate, ctx.duration, [
    {
      at: (ctx.duration * 1000) / 2,
      run: async () => {
        removalSent = Date.now();
        const answer = await api(server.url, "PUT", `/groups/${FAN_GROUP}`, OWNER, { data: { members: kept } });
        removalAnswered = Date.now();
        expectStatus("W8A revoke", answer.status, [200]);
      },
    },
  ]);
  const writesEnded = Date.now();
  const facts: RevokeFacts = {
    principals,
    removed: gone,
    lost: writer.written.filter((w) => w.answeredAt < removalSent).map((w) => w.id),
    written: new Set(writer.written.map((w) => w.id)),
    writes: run.answered2xx,
    removalSent,
  };
  // Until every stream still open has what it is owed (or a minute passed); then a quiet second for anything after.
  let verdict = judgeRevoke(await subscribers.streams(), facts);
  while (verdict.stillOwed > 0 && Date.now() - writesEnded < EXACT_WAIT_MS) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    verdict = judgeRevoke(await subscribers.streams(), facts);
  }
  const waitedMs = Date.now() - writesEnded;
  await settle(subscribers, 1000, 10_000);
  verdict = judgeRevoke(await subscribers.streams(), facts);
  const used = usage();
  const latencies = await subscribers.latencies();
  ctx.report({
    label: `W8A tessera revoke ${when}`,
    figures: {
      offeredWritesPerS: Math.round(rate * 100) / 100,
      writes2xx: run.answered2xx,
      writesFailed: run.failed,
      removed,
      recordsLost: facts.lost.length,
      kept: kept.length,
      ...verdict,
      exact: verdict.exact ? 1 : 0,
      removalMs: removalAnswered - removalSent,
      waitedMs,
      deliveryP50Ms: latencies.p50,
      deliveryP99Ms: latencies.p99,
      deliveryMaxMs: latencies.max,
      ...used,
    },
  });
}
