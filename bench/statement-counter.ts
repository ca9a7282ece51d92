/**
 * Loaded into a server child with `node --import <this file>` (W8B): counts what the process
 * sends PostgreSQL, by wrapping `pg`'s `Client.prototype.query`, and writes the totals to the
 * file named by BENCH_STATEMENTS_FILE every 100 ms (JSON: round trips, statements, and
 * statements by prepared name or first keyword). pg_stat_statements needs a preloaded library
 * that a shared PostgreSQL may not have; counting at the client needs nothing of it.
 *
 * A simple query (no parameters) may hold several statements (`BEGIN; …; COMMIT`): they are
 * counted by their `;`-separated parts, which is exact for the server's statements (their
 * literals hold no `;` in the bench's data).
 */
import { renameSync, writeFileSync } from "node:fs";
import pg from "pg";

const file = process.env.BENCH_STATEMENTS_FILE;
const totals = { roundTrips: 0, statements: 0, byKind: {} as Record<string, number> };

function countKind(kind: string): void {
  totals.byKind[kind] = (totals.byKind[kind] ?? 0) + 1;
  totals.statements += 1;
}

function firstWord(text: string): string {
  return (/^\s*(\w+)/.exec(text)?.[1] ?? "?").toUpperCase();
}

function count(config: unknown, values: unknown): void {
  totals.roundTrips += 1;
  const query = typeof config === "string" ? { text: config } : (config as { text?: unknown; name?: unknown; values?: unknown } | null);
  const text = typeof query?.text === "string" ? query.text : "";
  if (typeof query?.name === "string") {
    countKind(query.name);
    return;
  }
  const parameters = values ?? query?.values;
  if (Array.isArray(parameters) && parameters.length > 0) {
    countKind(firstWord(text));
    return;
  }
  const parts = text.split(";").filter((part) => part.trim() !== "");
  for (const part of parts.length > 0 ? parts : [text]) countKind(firstWord(part));
}

if (file) {
  const prototype = pg.Client.prototype as unknown as { query: (this: pg.Client, ...args: unknown[]) => unknown };
  const query = prototype.query;
  prototype.query = function counted(this: pg.Client, ...args: unknown[]) {
    count(args[0], typeof args[1] === "function" ? undefined : args[1]);
    return query.apply(this, args);
  };
  // Written aside, then renamed over: a reader never sees half a file.
  const write = () => {
    writeFileSync(`${file}.part`, JSON.stringify(totals));
    renameSync(`${file}.part`, file);
  };
  setInterval(write, 100).unref();
  process.once("exit", write);
}
