/**
 * W8A, fan-out: N subscribers (3,000) of one collection, each its own user, none with
 * collection-level read; every record is shared for reading with one group whose members are all
 * N users, so every write is readable by every subscriber through its own principals. Measured on
 * the bare node:http fan-out (the ceiling, sse-ceiling-server.ts) and on Tessera, in this order,
 * with the same subscribers, the same records and the same open-loop writer:
 *
 * - at the target's offered rate (10,000 deliveries/s: 10,000/N writes per second, 3.4 for 3,000), `duration`
 *   seconds after a `warmup`: deliveries/s, delivery p50/p99/max, every event delivered?;
 * - the highest rate each keeps up with: the rate doubles (or halves, if the target rate is not
 *   kept up with) every step of 5 s until a step fails, then the midpoint of the last pass and
 *   the first failure is tried; a step is kept up with when every event arrived within 2 s of its
 *   last write, the delivery p99 stayed at most 500 ms (a backlog growing through a step pushes it
 *   up), no write failed and no stream was ended. Each step also says whether its p99 was within
 *   the target's 100 ms;
 * - Tessera only, lost access (feed-scale-revoke.ts): 100 users taken out of the group during a
 *   run at the target rate, right after the first ("revoke early": each loses the few dozen
 *   records written so far; they are put back in the group before the ramp), and after the ramp
 *   ("revoke late": 100 other users, each losing the hundreds of records the ramp wrote too).
 */

import { settle, subscriberUsers, timedRecord, type ScaleContext } from "./feed-scale-context.js";
import { FEED, startSide, type ScaleServer } from "./feed-scale-servers.js";
import { startUsage } from "./feed-scale-usage.js";
import { OpenLoopWriter, type WriteRun } from "./open-loop-writer.js";
import { FAN_GROUP, putGroup, revoke } from "./feed-scale-revoke.js";
import { OWNER, principalOf } from "./seed.js";
import { openSubscribers, type Latencies, type SubscriberThread } from "./subscriber-thread.js";

const TARGET_DELIVERIES = 10_000;
const TARGET_P99_MS = 100;
const KEEP_UP_P99_MS = 500;
const REVOKED = 100;
const STEP_SECONDS = 5;
const MAX_STEPS = 12;

type Side = "ceiling" | "tessera";

interface Step {
  readonly rate: number;
  readonly run: WriteRun;
  readonly latencies: Latencies;
  readonly expected: number;
  readonly complete: boolean;
  readonly keepsUp: boolean;
  readonly figures: Record<string, number>;
}

export async function fanOut(ctx: ScaleContext): Promise<void> {
  for (const side of ["ceiling", "tessera"] as const) await fanOutOn(side, ctx);
}

async function fanOutOn(side: Side, ctx: ScaleContext): Promise<void> {
  const users = subscriberUsers("w8fan", ctx.subscribers);
  const server = await startSide(side, ctx, "fan", ctx.subscribers);
  try {
    if (side === "tessera") await putGroup(server, users.map(principalOf));
    const subscribers = await openSubscribers({ url: `${server.url}/v1/${FEED}`, users, concurrency: 32 });
    ctx.log(`W8A ${side}: ${users.length} streams open in ${subscribers.openSeconds.toFixed(1)} s`);
    const writer = new OpenLoopWriter({
      url: `${server.url}/v1/${FEED}`,
      credentials: OWNER,
      body: (n, sentAt) => JSON.stringify({ data: timedRecord(n, sentAt), permissions: { read: [`group:${FAN_GROUP}`] } }),
    });
    try {
      await measureFanOut(side, ctx, server, subscribers, writer, users);
    } finally {
      writer.close();
      await subscribers.stop();
    }
  } finally {
    const profile = await server.close();
    if (profile) console.log(profile);
  }
}

async function measureFanOut(
  side: Side,
  ctx: ScaleContext,
  server: ScaleServer,
  subscribers: SubscriberThread,
  writer: OpenLoopWriter,
  users: readonly string[],
): Promise<void> {
  // Rounded up to a tenth of a write per second, so that the deliveries offered reach the target.
  const targetRate = Math.ceil((TARGET_DELIVERIES / users.length) * 10) / 10;
  const step = (rate: number, seconds: number, drainMs: number) =>
    measureStep(server, subscribers, writer, users.length, rate, seconds, drainMs);
  if (ctx.warmup > 0) {
    const warm = await writer.run(targetRate, ctx.warmup);
    await subscribers.drain(warm.answered2xx * users.length, 30_000);
  }
  const target = await step(targetRate, ctx.duration, 30_000);
  ctx.log(`W8A ${side}: sample event ${JSON.stringify(target.latencies.sampleEvent)} (${byteLength(target.latencies.sampleEvent)} bytes)`);
  ctx.report({ label: `W8A ${side} target`, figures: { ...target.figures, eventBytes: byteLength(target.latencies.sampleEvent) } });
  const principals = users.map(principalOf);
  const last = (from: number) => principals.slice(Math.max(1, principals.length - from), principals.length - from + REVOKED);
  if (side === "tessera") {
    await revoke("early", ctx, server, subscribers, writer, principals, last(REVOKED), targetRate);
    // Back in the group: each gets every record again (as `update`), and the ramp writes to everyone again.
    await subscribers.reset();
    await putGroup(server, principals);
    await subscribers.drain(REVOKED * writer.written.length, 120_000);
    await settle(subscribers, 1000, 120_000);
  }
  const stepSeconds = Math.min(STEP_SECONDS, ctx.duration);
  const best = await highestKeptUp(side, ctx, target, (rate) => step(rate, stepSeconds, 2_000), stepSeconds, subscribers);
  ctx.report({
    label: `W8A ${side} max`,
    figures: best ? { ...best.figures } : { offeredWritesPerS: 0, deliveredPerS: 0, keepsUp: 0 },
  });
  if (side === "tessera") await revoke("late", ctx, server, subscribers, writer, principals, last(2 * REVOKED), targetRate);
}

function byteLength(text: string | undefined): number {
  return text === undefined ? NaN : Buffer.byteLength(text, "latin1");
}

async function measureStep(
  server: ScaleServer,
  subscribers: SubscriberThread,
  writer: OpenLoopWriter,
  recipients: number,
  rate: number,
  seconds: number,
  drainMs: number,
): Promise<Step> {
  await subscribers.reset();
  const usage = await startUsage(server);
  const run = await writer.run(rate, seconds);
  const expected = run.answered2xx * recipients;
  const complete = await subscribers.drain(expected, drainMs);
  const used = usage();
  const latencies = await subscribers.latencies();
  const { closed } = await subscribers.count();
  const keepsUp = complete && latencies.p99 <= KEEP_UP_P99_MS && run.failed === 0 && closed === 0;
  const deliveredPerS = Math.round(latencies.events / seconds);
  return {
    rate,
    run,
    latencies,
    expected,
    complete,
    keepsUp,
    figures: {
      offeredWritesPerS: Math.round(rate * 100) / 100,
      seconds,
      writes2xx: run.answered2xx,
      writesFailed: run.failed,
      writeP99Ms: run.p99Ms,
      deliveries: latencies.events,
      expected,
      deliveredPerS,
      deliveryP50Ms: latencies.p50,
      deliveryP99Ms: latencies.p99,
      deliveryMaxMs: latencies.max,
      complete: complete ? 1 : 0,
      keepsUp: keepsUp ? 1 : 0,
      p99Within100: latencies.p99 <= TARGET_P99_MS ? 1 : 0,
      closedStreams: closed,
      ...used,
    },
  };
}

/**
 * Doubles (or halves, down to 2 writes a step) the rate until the answer changes, then tries the
 * midpoint once; the highest step kept up with, or undefined when none was.
 */
async function highestKeptUp(
  side: Side,
  ctx: ScaleContext,
  first: Step,
  step: (rate: number) => Promise<Step>,
  stepSeconds: number,
  subscribers: SubscriberThread,
): Promise<Step | undefined> {
  let best = first.keepsUp ? first : undefined;
  let failed = first.keepsUp ? undefined : first;
  const tried = async (rate: number) => {
    const result = await step(rate);
    ctx.log(
      `W8A ${side} step ${rate.toFixed(2)} writes/s: ${result.latencies.events}/${result.expected} delivered, p99 ${result.latencies.p99} ms, ${result.keepsUp ? "kept up" : "not kept up"}`,
    );
    // What a failed step left queued must arrive before the next one starts.
    if (!result.keepsUp) await settle(subscribers, 1000, 120_000);
    return result;
  };
  for (let i = 0; i < MAX_STEPS && !(best && failed); i += 1) {
    const rate = best ? best.rate * 2 : (failed as Step).rate / 2;
    if (rate * stepSeconds < 2) break;
    const result = await tried(rate);
    if (result.keepsUp) best = result;
    else failed = result;
  }
  if (best && failed) {
    const middle = await tried((best.rate + failed.rate) / 2);
    if (middle.keepsUp) best = middle;
  }
  return best;
}
