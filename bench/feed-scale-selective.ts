/**
 * W8B, selective: writers at full speed (autocannon, `connections`, as W7) while N subscribers
 * (3,000), each its own user and none with collection-level read, are open; each create grants
 * `read` to `GRANTS` (30, 1 %) of the N users in turn (record n to users 30n … 30n+29, modulo N),
 * so each write is readable by 30 subscribers and each subscriber sees a different slice. The
 * same writes run with nobody subscribed, with N/10 subscribed (300: the same grants, of which a
 * tenth reach an open stream) and with N, each on a fresh server and database, in this order.
 * Reported: writes/s and its ratio to the run without subscribers, delivery latency, events
 * against those owed, and what the server sent PostgreSQL per write (statement-counter.ts), which
 * must not grow with the subscribers (pg_stat_database's counters would not do: PostgreSQL 15
 * backends report them when they go idle, up to 10 s late, and pg_stat_statements needs a
 * preloaded library). Before the runs, this machine's floor (send-floor.ts): the microseconds one
 * bare socket write of an event costs, times GRANTS for a write's deliveries, reported beside the
 * server's CPU per write without subscribers.
 */
import autocannon from "autocannon";
import { settle, sleep, subscriberUsers, timedRecord, type ScaleContext } from "./feed-scale-context.js";
import { FEED, startTesseraFor, type StatementTotals } from "./feed-scale-servers.js";
import { startUsage } from "./feed-scale-usage.js";
import { authorization, OWNER, principalOf } from "./seed.js";
import { sendFloorMicros } from "./send-floor.js";
import { openSubscribers, type SubscriberThread } from "./subscriber-thread.js";

const GRANTS = 30;
/** The statement counter writes its totals every 100 ms. */
const COUNTERS_SETTLE_MS = 300;

export async function selective(ctx: ScaleContext): Promise<void> {
  // The floor first, the machine otherwise idle: a burst's worth of writes, each to one stream.
  const sendFloorUs = await sendFloorMicros({ streams: ctx.subscribers, perBurst: 10 * GRANTS, pauseMs: 15, seconds: 3, eventBytes: 330 });
  const users = subscriberUsers("w8sel", ctx.subscribers);
  const principals = users.map(principalOf);
  const rates = new Map<number, number>();
  const perWrite = new Map<number, number>();
  let cpuMsPerWriteWithout = NaN;
  for (const count of [0, Math.round(users.length / 10), users.length]) {
    const figures = await selectiveRun(ctx, users.slice(0, count), principals);
    rates.set(count, figures.writesPerS ?? NaN);
    perWrite.set(count, figures.statementsPerWrite ?? NaN);
    if (count === 0) cpuMsPerWriteWithout = ((figures.serverCpuS ?? NaN) * 1000) / (figures.writes2xx ?? NaN);
  }
  const without = rates.get(0) ?? NaN;
  const tenth = Math.round(users.length / 10);
  ctx.report({
    label: "W8B ratios",
    figures: {
      withToWithout: round2((rates.get(users.length) ?? NaN) / without),
      tenthToWithout: round2((rates.get(tenth) ?? NaN) / without),
      statementsPerWriteAllToTenth: round2((perWrite.get(users.length) ?? NaN) / (perWrite.get(tenth) ?? NaN)),
      // What a write's deliveries cost at the least (GRANTS socket writes), next to the server's CPU per write without subscribers.
      sendFloorUs,
      floorMsPerWrite: round2((GRANTS * sendFloorUs) / 1000),
      serverCpuMsPerWriteWithout: round2(cpuMsPerWriteWithout),
    },
  });
}

const round2 = (value: number) => Math.round(value * 100) / 100;

/** The body of the n-th create: shared with GRANTS of the users, in turn. */
function body(n: number, principals: readonly string[]): string {
  const read = Array.from({ length: GRANTS }, (_, j) => principals[(n * GRANTS + j) % principals.length]);
  return JSON.stringify({ data: timedRecord(n, Date.now()), permissions: { read } });
}

/** How many of the n-th write's grants reach one of the first `open` of `all` users (an open stream). */
function reached(n: number, open: number, all: number): number {
  let count = 0;
  for (let j = 0; j < GRANTS; j += 1) if ((n * GRANTS + j) % all < open) count += 1;
  return count;
}

async function selectiveRun(ctx: ScaleContext, users: readonly string[], principals: readonly string[]): Promise<Record<string, number>> {
  const server = await startTesseraFor(ctx, "sel", Math.max(1, users.length), {
    countStatements: true,
    profile: ctx.profile && users.length === principals.length,
  });
  let subscribers: SubscriberThread | undefined;
  try {
    if (users.length > 0) {
      subscribers = await openSubscribers({ url: `${server.url}/v1/${FEED}`, users, concurrency: 32 });
      ctx.log(`W8B: ${users.length} streams open in ${subscribers.openSeconds.toFixed(1)} s`);
    }
    let n = 0;
    /** Events owed for the writes answered 2xx since the last load began. */
    let owed = 0;
    const load = (seconds: number) => {
      owed = 0;
      return autocannon({
        url: server.url,
        connections: ctx.connections,
        pipelining: 1,
        duration: seconds,
        requests: [
          {
            method: "POST",
            path: `/v1/${FEED}`,
            headers: { Authorization: authorization(OWNER), "Content-Type": "application/json" },
            setupRequest: (request, context) => {
              context.n = n += 1;
              return { ...request, body: body(n, principals) };
            },
            onResponse: (status, _body, context) => {
              if (status >= 200 && status < 300) owed += reached(Number(context.n), users.length, principals.length);
            },
          },
        ],
      });
    };
    if (ctx.warmup > 0) {
      await load(ctx.warmup);
      if (subscribers) {
        await subscribers.drain(owed, 30_000);
        await settle(subscribers, 500, 30_000);
        await subscribers.reset();
      }
    }
    await sleep(COUNTERS_SETTLE_MS);
    const statementsBefore = server.statements();
    const usage = await startUsage(server);
    const result = await load(ctx.duration);
    const expected = owed;
    if (subscribers) {
      await subscribers.drain(expected, 30_000);
      await settle(subscribers, 500, 30_000);
    }
    const used = usage();
    await sleep(COUNTERS_SETTLE_MS);
    const statementsAfter = server.statements();
    const latencies = await subscribers?.latencies();
    const closed = (await subscribers?.count())?.closed ?? 0;
    const writes = result["2xx"];
    const per = (before: number | undefined, after: number | undefined) =>
      before === undefined || after === undefined || writes === 0 ? NaN : round2((after - before) / writes);
    ctx.log(`W8B ${users.length} subscribers, statements per write by kind: ${byKind(statementsBefore, statementsAfter, writes)}`);
    const figures: Record<string, number> = {
      subscribers: users.length,
      writesPerS: result.requests.average,
      writes2xx: writes,
      non2xx: result.non2xx,
      writeP99Ms: result.latency.p99,
      deliveries: latencies?.events ?? 0,
      expected,
      deliveryP50Ms: latencies?.p50 ?? NaN,
      deliveryP99Ms: latencies?.p99 ?? NaN,
      closedStreams: closed,
      statementsPerWrite: per(statementsBefore?.statements, statementsAfter?.statements),
      roundTripsPerWrite: per(statementsBefore?.roundTrips, statementsAfter?.roundTrips),
      ...used,
    };
    ctx.report({ label: `W8B ${users.length} subscribers`, figures });
    return figures;
  } finally {
    await subscribers?.stop();
    const profile = await server.close();
    if (profile) console.log(profile);
  }
}

/** `name 1.02, SELECT 0.50, …` per write, the largest first. */
function byKind(before: StatementTotals | undefined, after: StatementTotals | undefined, writes: number): string {
  if (!before || !after || writes === 0) return "not counted";
  return Object.entries(after.byKind)
    .map(([kind, count]) => [kind, (count - (before.byKind[kind] ?? 0)) / writes] as const)
    .filter(([, perWrite]) => perWrite > 0)
    .sort((a, b) => b[1] - a[1])
    .map(([kind, perWrite]) => `${kind} ${perWrite.toFixed(3)}`)
    .join(", ");
}
