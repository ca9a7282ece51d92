/** Printing figures: one line per measurement, and the medians and ratios of a comparison. */
import type { Measurement } from "./load.js";

const HEADER = ["workload", "backend", "c", "req/s", "p50 ms", "p99 ms", "errors", "non-2xx", "rss MB", "node µs", "sql µs"];

function statusText(m: Measurement): string {
  const parts = Object.entries(m.statuses).map(([code, count]) => `${code}:${count}`);
  if (m.rejectedInside > 0) parts.push(`sub-requests rejected:${m.rejectedInside}`);
  return parts.length > 0 ? ` (${parts.join(" ")})` : "";
}

export function header(): string {
  return HEADER.map((h, i) => (i < 2 ? h.padEnd(i === 0 ? 10 : 11) : h.padStart(8))).join(" ");
}

export function line(m: Measurement): string {
  const cells = [
    m.label.padEnd(10),
    m.backend.padEnd(11),
    String(m.connections).padStart(8),
    Math.round(m.requestsPerSecond).toString().padStart(8),
    m.p50.toFixed(1).padStart(8),
    m.p99.toFixed(1).padStart(8),
    String(m.errors).padStart(8),
    String(m.non2xx).padStart(8),
    String(m.rssMb).padStart(8),
    m.serverCpuUs.toFixed(0).padStart(8),
    m.sqlCpuUs.toFixed(0).padStart(8),
  ];
  return cells.join(" ") + statusText(m);
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? NaN) : ((sorted[mid - 1] ?? NaN) + (sorted[mid] ?? NaN)) / 2;
}

/** Same figure across rounds: `W4 100000 c=8 postgresql`. */
function figureKey(m: Measurement): string {
  return `${m.label} ${m.backend} c=${m.connections}`;
}

/** One line per figure: the median of each number over the rounds (statuses summed, RSS the highest). */
export function medians(all: readonly Measurement[]): Measurement[] {
  const keys = [...new Set(all.map(figureKey))];
  return keys.map((k) => {
    const same = all.filter((m) => figureKey(m) === k);
    const [first] = same as [Measurement, ...Measurement[]]; // every key came from one measurement at least
    const statuses: Record<string, number> = {};
    for (const m of same) for (const [code, count] of Object.entries(m.statuses)) statuses[code] = (statuses[code] ?? 0) + count;
    const sum = (pick: (m: Measurement) => number) => same.reduce((total, m) => total + pick(m), 0);
    return {
      ...first,
      requestsPerSecond: median(same.map((m) => m.requestsPerSecond)),
      p50: median(same.map((m) => m.p50)),
      p99: median(same.map((m) => m.p99)),
      errors: sum((m) => m.errors),
      non2xx: sum((m) => m.non2xx),
      rejectedInside: sum((m) => m.rejectedInside),
      total: sum((m) => m.total),
      statuses,
      rssMb: Math.max(...same.map((m) => m.rssMb)),
      serverCpuUs: median(same.map((m) => m.serverCpuUs)),
      sqlCpuUs: median(same.map((m) => m.sqlCpuUs)),
    };
  });
}

/**
 * Medians of A and B per figure and the ratio B/A (req/s: > 1 is better; latency and CPU per
 * request, the server's and its PostgreSQL backends' together: < 1 is better).
 */
export function comparison(a: readonly Measurement[], b: readonly Measurement[], names: [string, string]): string {
  const keys = [...new Set([...a, ...b].map(figureKey))];
  const out = [
    `A = ${names[0]}`,
    `B = ${names[1]}`,
    `${"figure".padEnd(34)} ${"A req/s".padStart(9)} ${"B req/s".padStart(9)} ${"B/A".padStart(6)} ${"A p50".padStart(7)} ${"B p50".padStart(7)} ${"B/A".padStart(6)} ${"A p99".padStart(7)} ${"B p99".padStart(7)} ${"B/A".padStart(6)} ${"A cpu".padStart(7)} ${"B cpu".padStart(7)} ${"B/A".padStart(6)} rounds`,
  ];
  for (const k of keys) {
    const of = (list: readonly Measurement[], pick: (m: Measurement) => number) => median(list.filter((m) => figureKey(m) === k).map(pick));
    const cols: string[] = [k.padEnd(34)];
    for (const [pick, digits, width] of [
      [(m: Measurement) => m.requestsPerSecond, 0, 9],
      [(m: Measurement) => m.p50, 1, 7],
      [(m: Measurement) => m.p99, 1, 7],
      [(m: Measurement) => m.serverCpuUs + m.sqlCpuUs, 0, 7],
    ] as const) {
      const ma = of(a, pick);
      const mb = of(b, pick);
      cols.push(ma.toFixed(digits).padStart(width), mb.toFixed(digits).padStart(width), (mb / ma).toFixed(2).padStart(6));
    }
    cols.push(String(a.filter((m) => figureKey(m) === k).length));
    out.push(cols.join(" "));
  }
  return out.join("\n");
}
