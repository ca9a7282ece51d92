/**
 * The settings table against a list written by hand: the parser accepts exactly the names the
 * list holds (from the environment, `tessera.` and `kinto.` config names), refuses each listed
 * bad value with a problem naming its setting, and calls every other name unknown.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect } from "chai";
import { loadSettings, SettingsError, type Settings } from "../../src/bootstrap/settings.js";
import { SETTINGS } from "../../src/bootstrap/settings-table.js";
import { environmentVariable, FAMILY_EXAMPLES, KNOWN_SETTINGS, type KnownSetting } from "./settings-names.js";

const goodEnvironment = (settings: readonly KnownSetting[]) =>
  Object.fromEntries(settings.map((s) => [environmentVariable(s.name), s.good]));

const fromEnvironment = (env: Record<string, string>) => loadSettings({ argv: [], env, defaultFile: false });

function problemsOf(run: () => unknown): readonly string[] {
  try {
    run();
  } catch (error) {
    expect(error).to.be.instanceOf(SettingsError);
    return (error as SettingsError).problems;
  }
  return [];
}

describe("settings table", () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), "tessera-settings-table-"));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const fromFile = (name: string, lines: readonly string[]): Settings => {
    const file = path.join(dir, name);
    writeFileSync(file, `[app:main]\n${lines.join("\n")}\n`);
    return loadSettings({ argv: ["--config", file], env: {}, defaultFile: false });
  };

  it("has one row per setting of the hand-written list, and no other", () => {
    expect(Object.keys(SETTINGS).sort()).to.deep.equal(KNOWN_SETTINGS.map((s) => s.name).sort());
  });

  it("accepts every listed setting from its TESSERA_ variable, and calls none of them unknown", () => {
    // A variable cannot tell `multiauth.policy.x` from `multiauth_policy_x` unless the name is known: those come from the file.
    const fromVariables = [...KNOWN_SETTINGS, ...FAMILY_EXAMPLES].filter((s) => !s.name.startsWith("multiauth.policy."));
    const settings = fromEnvironment(goodEnvironment(fromVariables));
    expect(settings.unknown).to.deep.equal([]);
    for (const { name } of fromVariables) expect(settings.all, name).to.have.property(name);
  });

  it("accepts every listed setting written tessera.<name> and kinto.<name> in a config file", () => {
    for (const prefix of ["tessera.", "kinto."]) {
      const lines = [...KNOWN_SETTINGS, ...FAMILY_EXAMPLES].map(
        (s) => `${s.name.startsWith("multiauth.") ? "" : prefix}${s.name} = ${s.good}`,
      );
      const settings = fromFile(`all-${prefix}ini`, lines);
      expect(settings.unknown, prefix).to.deep.equal([]);
      expect(settings.storage.poolSize, prefix).to.equal(4);
      expect(settings.feedCatchUpSeconds, prefix).to.equal(0.25);
    }
  });

  it("refuses each listed bad value with one problem that names its setting", () => {
    const base = goodEnvironment(KNOWN_SETTINGS);
    for (const { name, bad } of [...KNOWN_SETTINGS, ...FAMILY_EXAMPLES]) {
      if (bad === undefined) continue;
      const problems = problemsOf(() => fromEnvironment({ ...base, [environmentVariable(name)]: bad }));
      expect(problems, `${name} = ${bad}`).to.have.length(1);
      expect(problems[0], name).to.match(new RegExp(`^${name.replace(/\./g, "\\.")}[ :]`));
    }
  });

  it("calls every other name unknown, a name of Object.prototype included", () => {
    const others = ["colour", "eos_foo", "constructor", "storage_pool", "articles_read", "multiauth"];
    const settings = fromEnvironment({
      ...goodEnvironment(KNOWN_SETTINGS),
      ...Object.fromEntries(others.map((name) => [environmentVariable(name), "x"])),
    });
    expect([...settings.unknown].sort()).to.deep.equal([...others].sort());
  });

  it("reads Kinto's own spellings, and refuses kinto. names that mean nothing here", () => {
    const settings = fromFile("kinto-spelling.ini", [
      "kinto.userid_hmac_secret = s",
      "kinto.resources = articles:shareable",
      "kinto.permission_backend = kinto.core.permission.memory",
      "kinto.storage_max_overflow = 7",
      "kinto.permission_max_overflow = 8",
      "kinto.cache_max_overflow = 9",
      "kinto.articles_write_principals = system.Authenticated",
    ]);
    expect([settings.storage.maxOverflow, settings.permission?.maxOverflow, settings.cache.maxOverflow]).to.deep.equal([7, 8, 9]);
    const problems = problemsOf(() =>
      fromFile("kinto-unsupported.ini", [
        "kinto.userid_hmac_secret = s",
        "kinto.resources = notes:user",
        "kinto.colour = blue",
        "kinto.posts_read_principals = system.Everyone",
        "kinto.notes_read_principals = system.Everyone",
      ]),
    );
    expect(problems).to.deep.equal([
      "kinto.colour: this Kinto setting is not supported by Tessera (remove it)",
      "kinto.posts_read_principals: this Kinto setting is not supported by Tessera (remove it)",
    ]);
  });

  it("gives a disabled method as false whichever boolean spelling the file uses", () => {
    const settings = fromFile("enabled.ini", ["userid_hmac_secret = s", "resources = notes:user", "notes_record_delete_enabled = off"]);
    expect(settings.all.notes_record_delete_enabled).to.equal(false);
  });
});
