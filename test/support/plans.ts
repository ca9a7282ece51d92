/**
 * Plans of the statements a store really sends: EXPLAIN of the custom plan (with the values) and
 * of the generic plan a prepared statement may settle on (PREPARE, then EXECUTE under
 * `plan_cache_mode = force_generic_plan`), as the scans they make.
 */
import { expect } from "chai";
import type pg from "pg";
import type { RecordingDatabase, Sent } from "./recording-database.js";

export interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Index Name"?: string;
  "Index Cond"?: string;
  Plans?: PlanNode[];
}

/** A bound value as an SQL literal (for EXECUTE, which takes no parameters). */
function literal(client: pg.Client, value: unknown): string {
  if (value === null || value === undefined) return "NULL";
  if (typeof value === "number") return String(value);
  if (Array.isArray(value))
    return client.escapeLiteral(
      `{${value.map((v) => (v === null ? "NULL" : `"${String(v as string).replace(/[\\"]/g, "\\$&")}"`)).join(",")}}`,
    );
  return client.escapeLiteral(typeof value === "string" ? value : JSON.stringify(value));
}

/** The indexes a bitmap heap scan reads through (its Bitmap Index Scan children, under any BitmapOr/And). */
function bitmapIndexes(node: PlanNode): string[] {
  return (node.Plans ?? []).flatMap((child) => [...(child["Index Name"] ? [child["Index Name"]] : []), ...bitmapIndexes(child)]);
}

/** Every scan of the plan: node type, table and index (a bitmap heap scan's through its index scans). */
export function scans(node: PlanNode): { type: string; table?: string; index?: string; cond?: string }[] {
  const index = node["Node Type"] === "Bitmap Heap Scan" ? bitmapIndexes(node).join("+") : node["Index Name"];
  const cond = node["Index Cond"];
  const own =
    node["Relation Name"] && node["Node Type"].endsWith("Scan")
      ? [{ type: node["Node Type"], table: node["Relation Name"], index, ...(cond ? { cond } : {}) }]
      : [];
  return [...own, ...(node.Plans ?? []).flatMap(scans)];
}

export type Scans = ReturnType<typeof scans>;

/** Scans of the custom plan (with these values) and of the generic plan of one statement. */
export async function plansOf(client: pg.Client, sent: Sent): Promise<{ custom: Scans; generic: Scans }> {
  const explain = async (text: string, values: readonly unknown[]) => {
    const result = await client.query<{ "QUERY PLAN": { Plan: PlanNode }[] }>(`EXPLAIN (FORMAT JSON) ${text}`, values as unknown[]);
    return scans(result.rows[0]!["QUERY PLAN"][0]!.Plan);
  };
  const custom = await explain(sent.text, sent.values);
  await client.query(`PREPARE planned AS ${sent.text}`);
  try {
    await client.query("SET plan_cache_mode = force_generic_plan");
    const args = sent.values.map((value) => literal(client, value)).join(", ");
    const generic = await explain(`EXECUTE planned${args ? `(${args})` : ""}`, []);
    return { custom, generic };
  } finally {
    await client.query("RESET plan_cache_mode");
    await client.query("DEALLOCATE planned");
  }
}

/** The statement `work` sends to the database (the first matching `pattern`). */
export async function statementOf(database: RecordingDatabase, pattern: RegExp, work: () => Promise<unknown>): Promise<Sent> {
  database.sent.length = 0;
  await work();
  const sent = database.sent.find((s) => pattern.test(s.text));
  if (!sent) expect.fail(`no statement matching ${pattern} among ${database.sent.map((s) => s.text).join("\n")}`);
  return sent;
}
