/**
 * Summary of a V8 `.cpuprofile` (written by `node --cpu-prof`): the hottest functions by self
 * time, time by area (package, Node internals, project layer, GC), and the project's own
 * functions by inclusive time. Plain JSON parsing, no extra package.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** `dist/src/adapters/http/app.js:42`, `koa/lib/application.js:10`, `node:internal/...`. */
function where(frame: CallFrame): string {
  if (!frame.url) return "";
  const url = frame.url.replace(/^file:\/\//, "");
  const modules = url.lastIndexOf("node_modules/");
  const short =
    modules >= 0 ? url.slice(modules + "node_modules/".length) : url.includes("/dist/") ? url.slice(url.lastIndexOf("/dist/") + 1) : url;
  return `${short}:${frame.lineNumber + 1}`;
}

/** The area a frame's time belongs to: a package, Node itself, a project layer, or V8's own buckets. */
function area(frame: CallFrame): string {
  const url = frame.url.replace(/^file:\/\//, "");
  if (!url) return frame.functionName.startsWith("(") ? frame.functionName : "(native)";
  const modules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (modules?.[1]) return modules[1];
  const project = /\/dist\/(src\/[^/]+(?:\/[^/]+)?)\//.exec(url);
  if (project?.[1]) return project[1];
  if (url.startsWith("node:")) return "node internals";
  return path.basename(url);
}

function key(frame: CallFrame): string {
  return `${frame.functionName || "(anonymous)"}  ${where(frame)}`.trim();
}

export function latestProfile(directory: string): string {
  const files = readdirSync(directory)
    .filter((f) => f.endsWith(".cpuprofile"))
    .sort();
  const last = files.at(-1);
  if (!last) throw new Error(`no .cpuprofile in ${directory}`);
  return path.join(directory, last);
}

export function summarizeProfile(file: string, top = 15): string {
  const profile = JSON.parse(readFileSync(file, "utf8")) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const self = new Map<string, number>();
  const areas = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let total = 0;
  let idle = 0;
  profile.samples.forEach((id, i) => {
    const node = byId.get(id);
    const delta = (profile.timeDeltas[i] ?? 0) / 1000;
    if (!node) return;
    if (node.callFrame.functionName === "(idle)") {
      idle += delta;
      return;
    }
    total += delta;
    self.set(key(node.callFrame), (self.get(key(node.callFrame)) ?? 0) + delta);
    areas.set(area(node.callFrame), (areas.get(area(node.callFrame)) ?? 0) + delta);
    // Inclusive time of the project's own functions, each counted once per stack.
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at)?.callFrame;
      if (frame && frame.url.includes("/dist/src/")) seen.add(key(frame));
    }
    for (const k of seen) inclusive.set(k, (inclusive.get(k) ?? 0) + delta);
  });
  const pct = (ms: number) => `${((100 * ms) / total).toFixed(1).padStart(5)} %`;
  const rows = (map: Map<string, number>, n: number) =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([name, ms]) => `  ${ms.toFixed(0).padStart(7)} ms ${pct(ms)}  ${name}`);
  return [
    `profile ${file}: ${total.toFixed(0)} ms busy, ${idle.toFixed(0)} ms idle`,
    `hottest functions by self time (top ${top}):`,
    ...rows(self, top),
    "self time by area:",
    ...rows(areas, 15),
    `project functions by inclusive time (top ${top}):`,
    ...rows(inclusive, top),
  ].join("\n");
}
