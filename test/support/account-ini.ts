/** Settings from INI text (dotted per-policy names cannot come from environment variables). */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { loadSettings, type Settings } from "../../src/bootstrap/settings.js";

export function settingsFromIni(text: string): Settings {
  const dir = mkdtempSync(path.join(tmpdir(), "tessera-auth-"));
  try {
    const file = path.join(dir, "tessera.ini");
    writeFileSync(file, `[app:main]\n${text}\n`);
    return loadSettings({ argv: ["--config", file], env: {}, defaultFile: false });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
