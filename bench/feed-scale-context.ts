/** What every part of W8 is given, and the helpers they share. */
import type { ScaleResult } from "./feed-scale-report.js";
import { recordData } from "./seed.js";
import type { SubscriberThread } from "./subscriber-thread.js";

export interface ScaleContext {
  /** Build directory of the Tessera server (holding dist/). */
  readonly buildDir: string;
  /** Build directory of the bench itself (ceiling server, statement counter). */
  readonly benchBuild: string;
  readonly settings: Readonly<Record<string, string>>;
  readonly postgres: string;
  /** Prefix of the databases W8 recreates (`<database>_fan`, `_sel`, `_idle`). */
  readonly database: string;
  readonly duration: number;
  readonly warmup: number;
  /** W8A and W8B subscribers (3,000). */
  readonly subscribers: number;
  /** W8I subscribers (10,000). */
  readonly idleSubscribers: number;
  /** W8B writers' connections (10, as W7). */
  readonly connections: number;
  readonly profile: boolean;
  readonly log: (line: string) => void;
  readonly report: (result: ScaleResult) => void;
}

/** Basic credentials of the i-th subscriber of a part (`prefix` keeps the parts' users apart). */
export function subscriberUsers(prefix: string, count: number): string[] {
  return Array.from({ length: count }, (_, i) => `${prefix}${i}:bench-password`);
}

/** W2's record with the time its write left (`sentAt`, from which subscribers time delivery). */
export function timedRecord(n: number, sentAt: number): Record<string, unknown> {
  return { ...recordData(n), sentAt };
}

/** Waits until no event arrived for `quietMs` (at most `timeoutMs`): what was owed has arrived. */
export async function settle(subscribers: SubscriberThread, quietMs = 1000, timeoutMs = 60_000): Promise<number> {
  const started = Date.now();
  let last = (await subscribers.count()).events;
  let quietSince = Date.now();
  while (Date.now() - started < timeoutMs) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const now = (await subscribers.count()).events;
    if (now !== last) {
      last = now;
      quietSince = Date.now();
    } else if (Date.now() - quietSince >= quietMs) break;
  }
  return last;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
