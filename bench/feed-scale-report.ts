/** W8's figures: one named line of numbers per measurement, and their medians over rounds. */
import { median } from "./report.js";

export interface ScaleResult {
  /** `W8A tessera target`, `W8B 3000 subscribers`... */
  readonly label: string;
  readonly figures: Readonly<Record<string, number>>;
}

function shown(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  if (Number.isInteger(value)) return String(value);
  return Math.abs(value) >= 100 ? value.toFixed(0) : value.toFixed(2);
}

export function scaleLine(result: ScaleResult): string {
  return `${result.label.padEnd(26)} ${Object.entries(result.figures)
    .map(([name, value]) => `${name}=${shown(value)}`)
    .join(" ")}`;
}

/** Per label, the median of each figure over the rounds (in the order labels first came). */
export function scaleMedians(results: readonly ScaleResult[]): ScaleResult[] {
  const labels = [...new Set(results.map((r) => r.label))];
  return labels.map((label) => {
    const same = results.filter((r) => r.label === label);
    const names = [...new Set(same.flatMap((r) => Object.keys(r.figures)))];
    const figures: Record<string, number> = {};
    for (const name of names) figures[name] = median(same.map((r) => r.figures[name] ?? NaN).filter((v) => !Number.isNaN(v)));
    return { label: `${label} (median of ${same.length})`, figures };
  });
}
