/**
 * kinto-http 5.3.0 as npm installs it: its Node build (`main`) requires three optional peer
 * packages at load time (node-fetch, atob, form-data) that Tessera does not depend on. Node has
 * each of them built in (Headers/fetch, atob, FormData), so the build is loaded with those
 * supplied in their place; every request it sends still goes through its own code and the
 * global fetch, as in any Node application using it.
 */
import { createRequire, Module } from "node:module";
import { readFileSync } from "node:fs";
import type * as KintoHttpPackage from "kinto-http";

// Seen from an ES module, the CommonJS package's `default` is its exports object, whose `default` is the class.
export type KintoHttpClientClass = typeof KintoHttpPackage.default.default;
export type KintoHttpClient = InstanceType<KintoHttpClientClass>;

/** What the build takes from each optional peer, given by Node itself. */
const BUILT_IN_PEERS: Readonly<Record<string, unknown>> = {
  "node-fetch": { default: globalThis.fetch, Headers: globalThis.Headers },
  atob: globalThis.atob,
  "form-data": globalThis.FormData,
};

type LoadableModule = Module & {
  require(id: string): unknown;
  _compile(source: string, filename: string): void;
  exports: { default: KintoHttpClientClass };
};

function load(): KintoHttpClientClass {
  const filename = createRequire(import.meta.url).resolve("kinto-http");
  const build = new Module(filename) as LoadableModule;
  build.filename = filename;
  build.paths = (Module as unknown as { _nodeModulePaths(dir: string): string[] })._nodeModulePaths(filename);
  const requireFromBuild = build.require.bind(build);
  build.require = (id: string) => (id in BUILT_IN_PEERS ? BUILT_IN_PEERS[id] : requireFromBuild(id));
  build._compile(readFileSync(filename, "utf8"), filename);
  return build.exports.default;
}

export const KintoClient: KintoHttpClientClass = load();
