/**
 * The documents stand on their own: every relative link of README.md and docs/**.md leads to a
 * file or folder of the project, and a `#fragment` to a heading of the Markdown file it names
 * (GitHub's anchors), and no document points at a path of the machine it was written on.
 * http(s) and mailto links are not followed.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { expect } from "chai";
import { PROJECT_ROOT } from "../support/tessera-process.js";

interface Link {
  readonly line: number;
  readonly target: string;
}

/** The Markdown documents: README.md and every .md under docs/. */
function documents(root: string): string[] {
  const found = [path.join(root, "README.md")];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith(".md")) found.push(full);
    }
  };
  walk(path.join(root, "docs"));
  return found;
}

/** Lines outside fenced code blocks, with inline code spans blanked (links in code are examples). */
function proseLines(text: string): Array<[number, string]> {
  const lines: Array<[number, string]> = [];
  let fenced = false;
  text.split("\n").forEach((line, index) => {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    else if (!fenced) lines.push([index + 1, line.replace(/`[^`]*`/g, "``")]);
  });
  return lines;
}

/** Inline links and images `[text](target "title")`, and reference definitions `[label]: target`. */
function linksOf(text: string): Link[] {
  const links: Link[] = [];
  for (const [line, prose] of proseLines(text)) {
    for (const match of prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)/g))
      links.push({ line, target: match[1] ?? "" });
    const definition = /^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/.exec(prose);
    if (definition?.[1]) links.push({ line, target: definition[1] });
  }
  return links;
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as dashes. */
function slug(heading: string): string {
  const plain = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1") // a link keeps its text
    .replace(/`/g, "")
    .replace(/<[^>]+>/g, "")
    .trim()
    .toLowerCase();
  return plain.replace(/[^\p{L}\p{N}\p{M} _-]/gu, "").replace(/ /g, "-");
}

/** Every anchor a Markdown text offers: its headings (repeats numbered as GitHub does) and HTML ids. */
function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of text.split("\n")) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    if (fenced) continue;
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading?.[1] !== undefined) {
      const base = slug(heading[1]);
      const count = seen.get(base) ?? 0;
      seen.set(base, count + 1);
      anchors.add(count === 0 ? base : `${base}-${count}`);
    }
    for (const id of line.matchAll(/<a\s+(?:name|id)="([^"]+)"/g)) anchors.add(id[1] ?? "");
  }
  return anchors;
}

/** Why a link of `file` does not resolve, or undefined when it does (or is not ours to follow). */
function brokenLink(file: string, target: string, read: (file: string) => string | undefined): string | undefined {
  if (/^(https?:|mailto:)/i.test(target)) return undefined;
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return `unexpected scheme in ${target}`;
  const [rawPath = "", fragment] = target.split("#", 2);
  const pathPart = decodeURIComponent(rawPath);
  if (pathPart.startsWith("/")) return `absolute path ${target}: write it relative to the document`;
  const resolved = pathPart === "" ? file : path.resolve(path.dirname(file), pathPart);
  if (pathPart !== "" && !existsSync(resolved)) return `no file ${pathPart}`;
  if (fragment === undefined || fragment === "") return undefined;
  if (!resolved.endsWith(".md")) return undefined;
  const text = read(resolved);
  if (text === undefined) return `cannot read ${pathPart}`;
  return anchorsOf(text).has(fragment) ? undefined : `no heading #${fragment} in ${path.basename(resolved)}`;
}

/** Paths of the machine a document was written on (its checkout, its shared folders). */
const MACHINE_PATH = /(?:^|[\s(`"'<[])(?:\/work\/|\/home\/|\/root\/)|\.\.\/shared\//;

/** Every broken link and machine path of the documents under `root`, as `file:line: reason`. */
function documentProblems(root: string): string[] {
  const read = (file: string) => (existsSync(file) ? readFileSync(file, "utf8") : undefined);
  const problems: string[] = [];
  for (const file of documents(root)) {
    const text = read(file) ?? "";
    const name = path.relative(root, file);
    for (const { line, target } of linksOf(text)) {
      const broken = brokenLink(file, target, read);
      if (broken) problems.push(`${name}:${line}: ${broken}`);
    }
    text.split("\n").forEach((line, index) => {
      if (MACHINE_PATH.test(line)) problems.push(`${name}:${index + 1}: points at a machine path: ${line.trim()}`);
    });
  }
  return problems;
}

describe("documents: links that resolve", () => {
  it("finds inline links, images and reference definitions, but not links in code", () => {
    const text = [
      "See [the API](docs/api.md#errors) and ![a shot](shots/1.png 'title').",
      "[ref]: ../README.md",
      "`[not a link](nowhere.md)`",
      "```",
      "[also not](nowhere.md)",
      "```",
    ].join("\n");
    expect(linksOf(text).map((l) => `${l.line} ${l.target}`)).to.deep.equal(["1 docs/api.md#errors", "1 shots/1.png", "2 ../README.md"]);
  });

  it("computes GitHub's anchors: punctuation dropped, code and links unwrapped, repeats numbered", () => {
    const text = "# Sync with `_since`\n## W1 and W7 (2026-11-26, 09:35–09:45 UTC)\n## Limits\n## Limits\n## A [linked](x.md) title";
    expect([...anchorsOf(text)]).to.deep.equal([
      "sync-with-_since",
      "w1-and-w7-2026-11-26-09350945-utc",
      "limits",
      "limits-1",
      "a-linked-title",
    ]);
  });

  it("tells a missing file, a missing heading and an absolute path from a good link", () => {
    const readme = path.join(PROJECT_ROOT, "README.md");
    const texts = new Map([[path.join(PROJECT_ROOT, "docs", "api.md"), "# The HTTP API\n## Errors\n"]]);
    const read = (file: string) => texts.get(file);
    expect(brokenLink(readme, "docs/api.md#errors", read)).to.equal(undefined);
    expect(brokenLink(readme, "https://example.org/nowhere", read)).to.equal(undefined);
    expect(brokenLink(readme, "docs/api.md#no-such-heading", read)).to.equal("no heading #no-such-heading in api.md");
    expect(brokenLink(readme, "docs/no-such-file.md", read)).to.equal("no file docs/no-such-file.md");
    expect(brokenLink(readme, "/etc/passwd", read)).to.match(/^absolute path/);
  });

  it("holds for README.md and every document under docs/", () => {
    expect(documentProblems(PROJECT_ROOT)).to.deep.equal([]);
  });
});
