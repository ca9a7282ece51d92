/**
 * `npm run docs:settings`: writes the settings reference, generated from the settings table,
 * between the markers of docs/configuration.md (the rest of the file is left as it is).
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { projectRoot } from "../src/bootstrap/project-root.js";
import { BEGIN_MARKER, END_MARKER, withSettingsReference } from "../src/bootstrap/settings-table-markdown.js";

export const CONFIGURATION_DOC = path.join(projectRoot(), "docs", "configuration.md");

/** Used only when the file does not exist yet. */
const SKELETON = `# Configuration

Every setting, its type, default and meaning, as the service reads them.

${BEGIN_MARKER}
${END_MARKER}
`;

const before = existsSync(CONFIGURATION_DOC) ? readFileSync(CONFIGURATION_DOC, "utf8") : SKELETON;
const after = withSettingsReference(before);
if (after === before) process.stdout.write(`${path.relative(process.cwd(), CONFIGURATION_DOC)} is up to date\n`);
else {
  writeFileSync(CONFIGURATION_DOC, after);
  process.stdout.write(`wrote the settings reference into ${path.relative(process.cwd(), CONFIGURATION_DOC)}\n`);
}
