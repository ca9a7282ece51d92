/** The layer rules of docs/architecture: domain ← application ← adapters ← bootstrap. */
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
  return [...text.matchAll(/^\s*(?:import|export)\s[^'"]*?from\s+["']([^"']+)["']|^\s*import\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/gm)].map(
    (m) => m[1] ?? m[2] ?? m[3] ?? "",
  );
}

/** Where an import lands: a layer (and adapter family) for relative paths, else the package. */
function target(file: string, spec: string): { layer?: string; adapter?: string; pkg?: string } {
  if (!spec.startsWith(".")) return { pkg: spec };
  const rel = path.relative(srcRoot, path.resolve(path.dirname(file), spec)).split(path.sep);
  return { layer: rel[0], adapter: rel[0] === "adapters" ? rel[1] : undefined };
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
