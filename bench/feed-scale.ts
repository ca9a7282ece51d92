/**
 * W8, the live feed at scale (docs/benchmarks.md), PostgreSQL only, each part with its ceiling in
 * the same run: W8A fan-out (feed-scale-fan-out.ts, against a bare node:http fan-out, with the
 * lost-access check), W8B selective (feed-scale-selective.ts, against the same writes without
 * subscribers and against the same deliveries from a bare process), W8I idle (feed-scale-idle.ts,
 * against the bare server's memory).
 */
import type { ScaleContext } from "./feed-scale-context.js";
import { fanOut } from "./feed-scale-fan-out.js";
import { idle } from "./feed-scale-idle.js";
import { selective } from "./feed-scale-selective.js";

export type { ScaleContext } from "./feed-scale-context.js";
export const FEED_SCALE_WORKLOADS = ["W8A", "W8B", "W8I"] as const;
export type FeedScaleWorkload = (typeof FEED_SCALE_WORKLOADS)[number];

const PARTS: Record<FeedScaleWorkload, (ctx: ScaleContext) => Promise<void>> = { W8A: fanOut, W8B: selective, W8I: idle };

export function isFeedScale(workload: string): workload is FeedScaleWorkload {
  return (FEED_SCALE_WORKLOADS as readonly string[]).includes(workload);
}

export async function runFeedScale(workload: FeedScaleWorkload, ctx: ScaleContext): Promise<void> {
  await PARTS[workload](ctx);
}
