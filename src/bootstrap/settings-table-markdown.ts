/**
 * The settings reference of docs/configuration.md, written from the settings table: one
 * Markdown table per section, then the families of names. `npm run docs:settings` puts it
 * between the markers; a test fails when the file holds anything else.
 */
import type { JsonValue } from "../domain/json.js";
import { environmentName, SETTING_PATTERNS, SETTINGS, type Section, type SettingRow } from "./settings-table.js";

export const BEGIN_MARKER = "<!-- settings-table:begin -->";
export const END_MARKER = "<!-- settings-table:end -->";

const HEADER = ["| setting | environment | type | default | meaning |", "|---|---|---|---|---|"];

/** A table cell: a `|` would end the cell, even inside backticks; a line break would end the row. */
const cell = (value: string) => value.replace(/\|/g, "\\|").replace(/\s*\n\s*/g, " ");
const code = (value: string) => `\`${value}\``;

function shownDefault(row: SettingRow<unknown>): string {
  if (row.shownDefault !== undefined) return row.shownDefault;
  const value: JsonValue | undefined = row.default;
  if (value === undefined || value === null) return "none";
  if (value === "") return "empty";
  return code(typeof value === "string" ? value : JSON.stringify(value));
}

function line(cells: readonly string[]): string {
  return `| ${cells.map(cell).join(" | ")} |`;
}

function settingLine(name: string, row: SettingRow<unknown>): string {
  const kinto = row.kinto === undefined ? "" : ` (Kinto: ${code(row.family ? row.kinto.replace(/^[a-z]+_/, "<kind>_") : row.kinto)})`;
  return line([code(name), code(environmentName(name)), row.type.label, shownDefault(row), `${row.description}${kinto}`]);
}

/** The reference as it stands between the markers (markers excluded). */
export function settingsReference(): string {
  const sections = new Map<Section, string[]>();
  const shownFamilies = new Set<string>();
  for (const [name, row] of Object.entries(SETTINGS as Record<string, SettingRow<unknown>>)) {
    const shownName = row.family ?? name;
    if (shownFamilies.has(shownName)) continue;
    shownFamilies.add(shownName);
    const lines = sections.get(row.section) ?? [];
    lines.push(settingLine(shownName, row));
    sections.set(row.section, lines);
  }
  const parts = [...sections].map(([section, lines]) => [`### ${section}`, "", ...HEADER, ...lines].join("\n"));
  const patterns = SETTING_PATTERNS.map((p) =>
    line([code(p.pattern), p.environment ?? code(environmentName(p.pattern)), p.type.label, p.shownDefault, p.description]),
  );
  parts.push([`### Names built from other settings`, "", ...HEADER, ...patterns].join("\n"));
  return [
    "<!-- Generated from src/bootstrap/settings-table.ts by `npm run docs:settings`: edit the table there, not here. -->",
    "",
    parts.join("\n\n"),
  ].join("\n");
}

/** `document` with its region between the markers replaced; throws when the markers are missing or out of order. */
export function withSettingsReference(document: string): string {
  const begin = document.indexOf(BEGIN_MARKER);
  const end = document.indexOf(END_MARKER);
  if (begin < 0 || end < begin) throw new Error(`the document has no ${BEGIN_MARKER} … ${END_MARKER} region`);
  return `${document.slice(0, begin + BEGIN_MARKER.length)}\n${settingsReference()}\n${document.slice(end)}`;
}
