/**
 * docs/configuration.md never drifts from the settings table: its region between the markers is
 * exactly what `npm run docs:settings` would write now, and it names every setting of the
 * hand-written list.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { expect } from "chai";
import { projectRoot } from "../../src/bootstrap/project-root.js";
import { BEGIN_MARKER, END_MARKER, withSettingsReference } from "../../src/bootstrap/settings-table-markdown.js";
import { environmentVariable, KNOWN_SETTINGS } from "./settings-names.js";

const DOC = path.join(projectRoot(), "docs", "configuration.md");

function region(document: string): string {
  const begin = document.indexOf(BEGIN_MARKER);
  const end = document.indexOf(END_MARKER);
  expect(begin, "the begin marker").to.be.at.least(0);
  expect(end, "the end marker, after the begin marker").to.be.above(begin);
  return document.slice(begin + BEGIN_MARKER.length, end);
}

describe("settings reference in docs/configuration.md", () => {
  const document = readFileSync(DOC, "utf8");

  it("is what npm run docs:settings writes from the settings table now", () => {
    expect(region(document), "docs/configuration.md is stale: run npm run docs:settings").to.equal(region(withSettingsReference(document)));
  });

  it("names every setting of the hand-written list, with its environment variable", () => {
    const reference = region(document);
    for (const { name } of KNOWN_SETTINGS) {
      // The three backends' settings are one row each: `<kind>_pool_size`.
      const shown = name.replace(
        /^(?:storage|permission|cache)_(pool_size|maxoverflow|max_backlog|pool_recycle|pool_timeout|statement_timeout_seconds|password_file|prefix)$/,
        "<kind>_$1",
      );
      expect(reference, name).to.contain(`| \`${shown}\` | \`${environmentVariable(shown)}\` |`);
    }
  });

  it("replaces only the region between the markers", () => {
    const before = `# Title\n\nProse before.\n\n${BEGIN_MARKER}\nstale\n${END_MARKER}\n\nProse after.\n`;
    const after = withSettingsReference(before);
    expect(after.startsWith(`# Title\n\nProse before.\n\n${BEGIN_MARKER}\n`)).to.equal(true);
    expect(after.endsWith(`\n${END_MARKER}\n\nProse after.\n`)).to.equal(true);
    expect(after).to.not.contain("stale");
    expect(withSettingsReference(after)).to.equal(after);
    expect(() => withSettingsReference("# No markers\n")).to.throw(/settings-table:begin/);
  });
});
