/**
 * W8I, idle: N (10,000) subscribers of one collection, each its own user and restricted (no
 * collection-level read), open and silent; the server's resident memory before, at its peak while
 * they open, and after `IDLE_SECONDS` with all of them open, against the bare node:http server
 * holding as many streams (sse-ceiling-server.ts), ceiling first.
 */
import { sleep, subscriberUsers, type ScaleContext } from "./feed-scale-context.js";
import { FEED, startSide } from "./feed-scale-servers.js";
import { startUsage } from "./feed-scale-usage.js";
import { openSubscribers } from "./subscriber-thread.js";

const IDLE_SECONDS = 5;
const RSS_BOUND_MB = 1024;

export async function idle(ctx: ScaleContext): Promise<void> {
  const users = subscriberUsers("w8idle", ctx.idleSubscribers);
  for (const side of ["ceiling", "tessera"] as const) {
    const server = await startSide(side, ctx, "idle", users.length);
    try {
      const before = server.sampleRss();
      await sleep(500);
      const baseRssMb = before();
      const opening = await startUsage(server);
      const subscribers = await openSubscribers({ url: `${server.url}/v1/${FEED}`, users, concurrency: 64 });
      try {
        const opened = opening();
        const idling = await startUsage(server);
        await sleep(IDLE_SECONDS * 1000);
        const used = idling();
        const { closed } = await subscribers.count();
        ctx.report({
          label: `W8I ${side}`,
          figures: {
            subscribers: users.length,
            openSeconds: subscribers.openSeconds,
            openServerCpuS: opened.serverCpuS,
            baseRssMb,
            rssMb: used.rssMb,
            peakRssMb: server.highWaterMb(),
            kbPerStream: Math.round(((used.rssMb - baseRssMb) * 1024) / users.length),
            idleServerCpuS: used.serverCpuS,
            closedStreams: closed,
            withinBound: used.rssMb <= RSS_BOUND_MB ? 1 : 0,
            load1: used.load1,
          },
        });
      } finally {
        await subscribers.stop();
      }
    } finally {
      const profile = await server.close();
      if (profile) console.log(profile);
    }
  }
}
