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
 *
 * Then the N streams on a second Tessera process of the same database, the writers' process
 * serving none (a deployment that keeps streams apart). Last, the same writes without subscribers
 * on Tessera while a bare process (sse-ceiling-server.ts) sends each answered write's event to
 * GRANTS of N streams, read by the same subscriber threads: what the deliveries alone cost this
 * machine, with no feed reading, deciding or waiting on the writers' thread. Its rate against the
 * rate without subscribers is the ceiling of W8B's ratio here; Tessera's rate with N subscribers
 * is reported against it too.
 */
import autocannon from "autocannon";
import { request as httpRequest, type ClientRequest } from "node:http";
import { settle, sleep, subscriberUsers, timedRecord, type ScaleContext } from "./feed-scale-context.js";
import { FEED, startCeiling, startTesseraFor, type ScaleServer, type StatementTotals } from "./feed-scale-servers.js";
import { startUsage } from "./feed-scale-usage.js";
import { cpuMs } from "./cpu-time.js";
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
  const second = (await selectiveRun(ctx, users, principals, "second")).writesPerS ?? NaN;
  const bare = (await selectiveRun(ctx, users, principals, "bare")).writesPerS ?? NaN;
  const without = rates.get(0) ?? NaN;
  const tenth = Math.round(users.length / 10);
  const all = rates.get(users.length) ?? NaN;
  ctx.report({
    label: "W8B ratios",
    figures: {
      withToWithout: round2(all / without),
      tenthToWithout: round2((rates.get(tenth) ?? NaN) / without),
      // The ceiling: the deliveries done by a bare process, against no deliveries; and Tessera against it.
      bareToWithout: round2(bare / without),
      withToBare: round2(all / bare),
      // The streams on a second process of the same database, the writers' process subscriber-free.
      secondProcessToWithout: round2(second / without),
      statementsPerWriteAllToTenth: round2((perWrite.get(users.length) ?? NaN) / (perWrite.get(tenth) ?? NaN)),
      // What a write's deliveries cost at the least (GRANTS socket writes), next to the server's CPU per write without subscribers.
      sendFloorUs,
      floorMsPerWrite: round2((GRANTS * sendFloorUs) / 1000),
      serverCpuMsPerWriteWithout: round2(cpuMsPerWriteWithout),
    },
  });
}

const round2 = (value: number) => Math.round(value * 100) / 100;

/** The n-th create: its data (JSON) and its body, shared with GRANTS of the users, in turn. */
function create(n: number, principals: readonly string[]): { data: string; body: string } {
  const read = Array.from({ length: GRANTS }, (_, j) => principals[(n * GRANTS + j) % principals.length]);
  const data = JSON.stringify(timedRecord(n, Date.now()));
  return { data, body: `{"data":${data},"permissions":${JSON.stringify({ read })}}` };
}

/**
 * The bare deliveries' channel (sse-ceiling-server.ts): one request whose body carries a line
 * per answered write, the lines of one turn of the loop in one chunk.
 */
function bareDeliveries(ceiling: ScaleServer): { deliver(data: string): void; close(): void } {
  const { hostname, port } = new URL(ceiling.url);
  const channel: ClientRequest = httpRequest({ hostname, port, method: "POST", path: `/deliveries?grants=${GRANTS}` });
  channel.on("error", () => undefined);
  channel.flushHeaders();
  let lines: string[] = [];
  return {
    deliver(data) {
      if (lines.length === 0)
        setImmediate(() => {
          channel.write(lines.join(""));
          lines = [];
        });
      lines.push(`${data}\n`);
    },
    close: () => channel.destroy(),
  };
}

/** How many of the n-th write's grants reach one of the first `open` of `all` users (an open stream). */
function reached(n: number, open: number, all: number): number {
  let count = 0;
  for (let j = 0; j < GRANTS; j += 1) if ((n * GRANTS + j) % all < open) count += 1;
  return count;
}

/**
 * Where the streams are served: by the Tessera process taking the writes, by a second Tessera
 * process of the same database, or by the bare process that sends each answered write's event
 * (Tessera, with nobody subscribed, taking the writes).
 */
type Streams = "same" | "second" | "bare";

/** The writes with `users` subscribed to the streams of `streams`. */
async function selectiveRun(
  ctx: ScaleContext,
  users: readonly string[],
  principals: readonly string[],
  streams: Streams = "same",
): Promise<Record<string, number>> {
  const server = await startTesseraFor(ctx, "sel", streams === "same" ? Math.max(1, users.length) : 1, {
    countStatements: true,
    profile: ctx.profile && streams === "same" && users.length === principals.length,
  });
  let other: ScaleServer | undefined;
  let channel: ReturnType<typeof bareDeliveries> | undefined;
  let subscribers: SubscriberThread | undefined;
  try {
    if (streams === "bare") {
      other = await startCeiling(ctx.benchBuild);
      channel = bareDeliveries(other);
    } else if (streams === "second") other = await startTesseraFor(ctx, "sel", users.length, { countStatements: true, joinDatabase: true });
    if (users.length > 0) {
      subscribers = await openSubscribers({ url: `${(other ?? server).url}/v1/${FEED}`, users, concurrency: 32 });
      ctx.log(`W8B: ${users.length} streams open in ${subscribers.openSeconds.toFixed(1)} s${SUFFIX[streams]}`);
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
              const { data, body } = create(n, principals);
              context.data = data;
              return { ...request, body };
            },
            onResponse: (status, _body, context) => {
              if (status < 200 || status >= 300) return;
              owed += reached(Number(context.n), users.length, principals.length);
              channel?.deliver(String(context.data));
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
    const statements = () => sumStatements(server.statements(), streams === "second" ? other?.statements() : undefined);
    const statementsBefore = statements();
    const usage = await startUsage(server);
    const otherCpuBefore = other ? cpuMs(other.pid) : 0;
    const result = await load(ctx.duration);
    const expected = owed;
    if (subscribers) {
      await subscribers.drain(expected, 30_000);
      await settle(subscribers, 500, 30_000);
    }
    const used = usage();
    const otherCpuS = other ? Math.round((cpuMs(other.pid) - otherCpuBefore) / 100) / 10 : 0;
    await sleep(COUNTERS_SETTLE_MS);
    const statementsAfter = statements();
    const latencies = await subscribers?.latencies();
    const closed = (await subscribers?.count())?.closed ?? 0;
    const writes = result["2xx"];
    const per = (before: number | undefined, after: number | undefined) =>
      before === undefined || after === undefined || writes === 0 ? NaN : round2((after - before) / writes);
    ctx.log(
      `W8B ${users.length} subscribers${SUFFIX[streams]}, statements per write by kind: ${byKind(statementsBefore, statementsAfter, writes)}`,
    );
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
      // The streams' process, when it is not the writers' (its PostgreSQL backends are in sqlCpuS).
      ...(other ? { streamsCpuS: otherCpuS } : {}),
    };
    ctx.report({ label: `W8B ${users.length} subscribers${SUFFIX[streams]}`, figures });
    return figures;
  } finally {
    channel?.close();
    await subscribers?.stop();
    await other?.close();
    const profile = await server.close();
    if (profile) console.log(profile);
  }
}

const SUFFIX: Record<Streams, string> = { same: "", second: ", streams on a second process", bare: ", bare deliveries" };

/** What two processes sent PostgreSQL, together (one undefined: the other's). */
function sumStatements(a: StatementTotals | undefined, b: StatementTotals | undefined): StatementTotals | undefined {
  if (!a || !b) return a ?? b;
  const byKind: Record<string, number> = { ...a.byKind };
  for (const [kind, count] of Object.entries(b.byKind)) byKind[kind] = (byKind[kind] ?? 0) + count;
  return { roundTrips: a.roundTrips + b.roundTrips, statements: a.statements + b.statements, byKind };
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
