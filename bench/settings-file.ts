/**
 * Server settings as an `.ini` file (`[app:main]`, read with `--config FILE`) instead of
 * `TESSERA_*` variables: one variable may hold at most 128 KiB on Linux, and a collection read
 * by thousands of principals (`<collection>_read_principals`) passes it, so the spawn fails with
 * E2BIG. The file has no such bound.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

export interface SettingsFile {
  /** `["--config", <file>]`, after the CLI's command. */
  readonly args: readonly string[];
  remove(): void;
}

/** Writes `settings` to a new file; each value on one line (the INI reader takes a line whole, `:` and `=` included). */
export function writeSettingsFile(settings: Readonly<Record<string, string>>): SettingsFile {
  const directory = mkdtempSync(path.join(tmpdir(), "tessera-bench-settings-"));
  const file = path.join(directory, "bench.ini");
  const lines = ["[app:main]"];
  for (const [name, value] of Object.entries(settings)) {
    if (/[\r\n]/.test(value)) throw new Error(`setting ${name}: a value on several lines cannot be written as one INI line`);
    lines.push(`${name} = ${value}`);
  }
  writeFileSync(file, `${lines.join("\n")}\n`);
  return { args: ["--config", file], remove: () => rmSync(directory, { recursive: true, force: true }) };
}
