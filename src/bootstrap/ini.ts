/**
 * A small INI reader for Tessera config files, Pyramid style: `[section]` headers, `key = value`
 * (or `key: value`), `;`/`#` comment lines, and indented continuation lines appended to the
 * previous value (so long lists can span lines). Values are raw strings.
 */
export interface IniLineError {
  readonly line: number;
  readonly message: string;
}

export interface IniDocument {
  readonly sections: ReadonlyMap<string, ReadonlyMap<string, string>>;
  readonly errors: readonly IniLineError[];
}

/** Keys outside any section belong to the section named "". */
export function parseIni(text: string): IniDocument {
  const sections = new Map<string, Map<string, string>>([["", new Map()]]);
  const errors: IniLineError[] = [];
  let section = sections.get("") as Map<string, string>;
  let lastKey: string | undefined;
  // A byte-order mark (Windows editors) would otherwise glue itself to the first header.
  text
    .replace(/^\uFEFF/, "")
    .split(/\r?\n/)
    .forEach((raw, index) => {
      const line = index + 1;
      if (/^\s*([;#].*)?$/.test(raw)) return;
      if (/^\s/.test(raw) && lastKey !== undefined) {
        section.set(lastKey, `${section.get(lastKey) ?? ""}\n${raw.trim()}`.trim());
        return;
      }
      // Text after the closing bracket (a comment) is ignored, as Python's ConfigParser does.
      const header = /^\[([^\]]+)\]/.exec(raw);
      if (header?.[1]) {
        const name = header[1].trim();
        section = sections.get(name) ?? new Map<string, string>();
        sections.set(name, section);
        lastKey = undefined;
        return;
      }
      const pair = /^([^=:\s][^=:]*?)\s*[=:]\s*(.*)$/.exec(raw);
      if (!pair?.[1]) {
        errors.push({ line, message: `cannot read line ${line}: ${raw.trim()}` });
        return;
      }
      lastKey = pair[1].trim();
      section.set(lastKey, (pair[2] ?? "").trim());
    });
  return { sections, errors };
}
