/**
 * The layer rules of docs/architecture.md: domain ← application ← adapters ← bootstrap; no import
 * cycle anywhere in src/; no port implemented by a cast; the shared-records rules of ADR 0014 (no
 * flag standing for "records and ACEs share a database", no kind name compared outside kinds/).
 */
import { expect } from "chai";
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..", "..", "src");
const srcRoot = statSync(root, { throwIfNoEntry: false }) ? root : path.resolve(import.meta.dirname, "..", "src");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith(".ts") ? [full] : [];
  });
}

function importsOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  return [
    ...text.matchAll(
      /^\s*(?:import|export)\s[^'"]*?from\s+["']([^"']+)["']|^\s*import\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/gm,
    ),
  ].map((m) => m[1] ?? m[2] ?? m[3] ?? "");
}

/** Where an import lands: a layer (and adapter family) for relative paths, else the package. */
function target(file: string, spec: string): { layer?: string; adapter?: string; pkg?: string } {
  if (!spec.startsWith(".")) return { pkg: spec };
  const rel = path.relative(srcRoot, path.resolve(path.dirname(file), spec)).split(path.sep);
  return { layer: rel[0], adapter: rel[0] === "adapters" ? rel[1] : undefined };
}

/** The source file a relative import names (`./x.js` is `./x.ts` in src/), or undefined for a package. */
function resolved(file: string, spec: string): string | undefined {
  if (!spec.startsWith(".")) return undefined;
  return path.resolve(path.dirname(file), spec).replace(/\.js$/, ".ts");
}

/** Every import cycle of the graph (one per strongly connected component with a loop), as file paths. */
function importCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  // Tarjan's algorithm, iterative enough for a source tree (recursion depth = longest import chain).
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  let next = 0;
  const visit = (node: string) => {
    index.set(node, next);
    low.set(node, next);
    next += 1;
    stack.push(node);
    onStack.add(node);
    for (const to of graph.get(node) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node) ?? 0, low.get(to) ?? 0));
      } else if (onStack.has(to)) {
        low.set(node, Math.min(low.get(node) ?? 0, index.get(to) ?? 0));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    for (let member = stack.pop(); member !== undefined; member = stack.pop()) {
      onStack.delete(member);
      component.push(member);
      if (member === node) break;
    }
    if (component.length > 1 || (graph.get(node) ?? []).includes(node)) cycles.push(component.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return cycles;
}

/** Names of the interfaces the application declares as ports. */
function portNames(): string[] {
  const ports = path.join(srcRoot, "application", "ports");
  return readdirSync(ports).flatMap((name) =>
    [...readFileSync(path.join(ports, name), "utf8").matchAll(/^export interface (\w+)/gm)].map((m) => m[1] ?? ""),
  );
}

/** `as Port` and `as unknown as Port`: a value that claims a port's type instead of implementing it. */
function portCasts(text: string, ports: readonly string[]): string[] {
  return [...text.matchAll(new RegExp(`\\bas\\s+(?:unknown\\s+as\\s+)?(?:${ports.join("|")})\\b`, "g"))].map((m) => m[0]);
}

const NODE_BUILTINS_ALLOWED_IN_CORE = new Set(["node:crypto"]);

describe("layer rules", () => {
  const files = sourceFiles(srcRoot);
  const layerOf = (file: string) => path.relative(srcRoot, file).split(path.sep);

  it("finds the source tree", () => {
    expect(files.length).to.be.greaterThan(5);
  });

  it("keeps domain free of every import outside itself", () => {
    for (const file of files.filter((f) => layerOf(f)[0] === "domain")) {
      for (const spec of importsOf(file)) {
        const t = target(file, spec);
        expect(t.layer, `${file} imports ${spec}`).to.equal("domain");
      }
    }
  });

  it("lets application import only domain, application and a few node built-ins", () => {
    for (const file of files.filter((f) => layerOf(f)[0] === "application")) {
      for (const spec of importsOf(file)) {
        const t = target(file, spec);
        if (t.pkg) expect(NODE_BUILTINS_ALLOWED_IN_CORE.has(t.pkg), `${file} imports ${spec}`).to.equal(true);
        else expect(["domain", "application"], `${file} imports ${spec}`).to.include(t.layer);
      }
    }
  });

  it("keeps adapters from importing bootstrap or another adapter family", () => {
    for (const file of files.filter((f) => layerOf(f)[0] === "adapters")) {
      const own = layerOf(file)[1];
      for (const spec of importsOf(file)) {
        const t = target(file, spec);
        if (t.pkg) continue;
        expect(t.layer, `${file} imports ${spec}`).to.not.equal("bootstrap");
        if (t.layer === "adapters") expect([own, "shared"], `${file} imports ${spec}`).to.include(t.adapter);
      }
    }
  });
});

describe("dependency rules", () => {
  const files = sourceFiles(srcRoot);

  it("finds no import cycle in src/ (type-only imports count: they name a dependency too)", () => {
    const graph = new Map(files.map((file) => [file, importsOf(file).flatMap((spec) => resolved(file, spec) ?? [])]));
    const cycles = importCycles(graph).map((cycle) => cycle.map((file) => path.relative(srcRoot, file)).join(" ↔ "));
    expect(cycles).to.deep.equal([]);
  });

  it("the cycle finder reports a cycle and only the files on it", () => {
    const graph = new Map([
      ["a", ["b"]],
      ["b", ["c"]],
      ["c", ["a", "d"]],
      ["d", []],
      ["e", ["e"]],
    ]);
    expect(importCycles(graph)).to.have.deep.members([["a", "b", "c"], ["e"]]);
    expect(
      importCycles(
        new Map([
          ["a", ["b"]],
          ["b", []],
        ]),
      ),
    ).to.deep.equal([]);
  });

  it("implements every port with a class or an object of the port's type, never a cast (bootstrap: no `as unknown as` at all)", () => {
    const ports = portNames();
    expect(ports).to.include.members(["RecordStore", "PermissionStore", "Cache", "UnitOfWork", "SharedRecords"]);
    for (const file of files.filter((f) =>
      ["bootstrap", "adapters", "application"].includes(path.relative(srcRoot, f).split(path.sep)[0] ?? ""),
    )) {
      const text = readFileSync(file, "utf8");
      expect(portCasts(text, ports), file).to.deep.equal([]);
      if (path.relative(srcRoot, file).startsWith("bootstrap")) expect(text, file).to.not.match(/\bas\s+unknown\s+as\b/);
    }
  });

  it("the cast finder sees the casts bootstrap used to make", () => {
    const ports = ["RecordStore", "Cache"];
    expect(portCasts('const records = pick("records") as RecordStore;', ports)).to.have.length(1);
    expect(portCasts("const cache = thing as unknown as Cache;", ports)).to.have.length(1);
    expect(
      portCasts("Symbol('RecordStore') as ServiceIdentifier<RecordStore>; class MemoryCache implements Cache {}", ports),
    ).to.deep.equal([]);
  });
});

/** The six names one fact ("records and ACEs live in one PostgreSQL database") once had (ADR 0014). */
const RETIRED_FLAGS = [
  "recordsBesideAces",
  "groupCommit",
  "aclInRecordTransaction",
  "aclSharesTransaction",
  "aclAfterRecord",
  "recheckSignals",
];

function flagUses(text: string): string[] {
  return RETIRED_FLAGS.filter((flag) => new RegExp(`\\b${flag}\\b`).test(text));
}

/** Comparisons of a kind with a literal name (`kind === "user"`, `"shareable" !== r.kind`). */
function kindComparisons(text: string): string[] {
  return [...text.matchAll(/\bkind\s*[!=]==?\s*["'`][^"'`]*["'`]|["'`][^"'`\n]*["'`]\s*[!=]==?\s*[\w.?]*\bkind\b/g)].map((m) => m[0]);
}

describe("shared records rules (ADR 0014)", () => {
  const files = sourceFiles(srcRoot);
  const relative = (file: string) => path.relative(srcRoot, file).split(path.sep).join("/");

  it("no file of src/ defines or reads the six flag names", () => {
    for (const file of files) expect(flagUses(readFileSync(file, "utf8")), relative(file)).to.deep.equal([]);
  });

  it("compares kind names only in kinds/ and the settings parser (the admin page is a browser program reading the API)", () => {
    const allowed = (rel: string) =>
      rel.startsWith("application/kinds/") || rel.startsWith("bootstrap/settings") || rel.startsWith("adapters/http/admin/");
    for (const file of files.filter((f) => !allowed(relative(f))))
      expect(kindComparisons(readFileSync(file, "utf8")), relative(file)).to.deep.equal([]);
  });

  it("the finders see a flag and a kind comparison, and not their look-alikes", () => {
    expect(flagUses("const joined = { aclAfterRecord: true };")).to.deep.equal(["aclAfterRecord"]);
    expect(flagUses("groupCommitOf(database)")).to.deep.equal([]);
    expect(kindComparisons('if (definition.kind === "user") x();')).to.have.length(1);
    expect(kindComparisons("return 'shareable' !== resource?.kind;")).to.have.length(1);
    expect(kindComparisons("const kinds = resourceKinds(deps); type K = Kind;")).to.deep.equal([]);
  });
});
