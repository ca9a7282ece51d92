/** A Kinto .ini file: `kinto.` settings and Kinto's backend module names work; the rest is named at startup. */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect } from "chai";
import { pino } from "pino";
import { startServer } from "../../src/bootstrap/server.js";
import { loadSettings, SettingsError } from "../../src/bootstrap/settings.js";
import { runCli } from "../support/cli-process.js";

/** The shape of Kinto's own generated config (kinto/config/kinto.tpl), with flat resources added. */
const KINTO_INI = `
[server:main]
use = egg:waitress#main
host = 127.0.0.1
port = 8888

[app:main]
kinto.resources = articles:shareable
kinto.storage_backend = kinto.core.storage.memory
kinto.cache_backend = kinto.core.cache.memory
kinto.permission_backend = kinto.core.permission.memory
kinto.storage_max_overflow = 7
kinto.userid_hmac_secret = kinto-secret
multiauth.policies = basicauth
kinto.articles_create_principals = system.Authenticated
kinto.listen_port = 0
kinto.trailing_slash_redirect_ttl_seconds = 60
`;

const UNSUPPORTED = `
kinto.includes = kinto.plugins.history
                 kinto.plugins.accounts
kinto.experimental_permissions_endpoint = true
kinto.explicit_permissions = false
kinto.bucket_id_generator = kinto.views.NameGenerator
`;

/** Kinto's tree settings, which mean the same here. */
const TREE = `
kinto.includes = kinto.plugins.default_bucket
kinto.bucket_create_principals = account:admin
kinto.default_bucket_hmac_secret = salt
kinto.experimental_collection_schema_validation = true
`;

describe("Kinto compatibility: Kinto config files", function () {
  this.timeout(30_000);
  let dir: string;
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), "tessera-kinto-ini-"));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const iniFile = (name: string, text: string) => {
    const file = path.join(dir, name);
    writeFileSync(file, text);
    return file;
  };

  it("serves from a Kinto .ini: kinto.-prefixed settings and Kinto backend module names", async () => {
    const settings = loadSettings({ argv: ["--config", iniFile("kinto.ini", KINTO_INI)], env: {}, defaultFile: false });
    expect(settings.storage.backend).to.equal("memory");
    expect(settings.permission?.backend).to.equal("memory");
    expect(settings.storage.maxOverflow).to.equal(7);
    const running = await startServer(settings, { logger: pino({ level: "silent" }) });
    try {
      const auth = { Authorization: `Basic ${Buffer.from("alice:pw").toString("base64")}`, "Content-Type": "application/json" };
      const created = await fetch(`${running.url}/v1/articles`, {
        method: "POST",
        headers: auth,
        body: JSON.stringify({ data: { title: "from kinto.ini" } }),
      });
      expect(created.status).to.equal(201);
      const redirect = await fetch(`${running.url}/v1/articles/`, { redirect: "manual" });
      expect(redirect.headers.get("cache-control")).to.equal("max-age=60");
    } finally {
      await running.stop();
    }
  });

  it("maps every Kinto backend module to ours (PostgreSQL and kinto-redis included)", () => {
    const ini = `[app:main]
kinto.resources = articles:shareable
kinto.userid_hmac_secret = s
kinto.storage_backend = kinto.core.storage.postgresql
kinto.storage_url = postgresql://postgres@127.0.0.1/test
kinto.permission_backend = kinto_redis.permission
kinto.permission_url = redis://127.0.0.1:6379/1
kinto.cache_backend = kinto.core.cache.postgresql
kinto.cache_url = postgresql://postgres@127.0.0.1/test
`;
    const settings = loadSettings({ argv: ["--config", iniFile("backends.ini", ini)], env: {}, defaultFile: false });
    expect([settings.storage.backend, settings.permission?.backend, settings.cache.backend]).to.deep.equal([
      "postgresql",
      "redis",
      "postgresql",
    ]);
  });

  it("names every unsupported Kinto setting at once", () => {
    try {
      loadSettings({
        argv: ["--config", iniFile("unsupported.ini", KINTO_INI + UNSUPPORTED + "kinto.cache_backend = kinto.core.cache.memcached\n")],
        env: {},
        defaultFile: false,
      });
      expect.fail("loaded");
    } catch (error) {
      expect(error).to.be.instanceOf(SettingsError);
      const problems = (error as SettingsError).problems.join("\n");
      for (const key of [
        "kinto.includes",
        "kinto.experimental_permissions_endpoint",
        "kinto.explicit_permissions",
        "kinto.bucket_id_generator",
        "kinto.core.cache.memcached",
      ]) {
        expect(problems, key).to.contain(key);
      }
      expect(problems).not.to.contain("kinto.articles_create_principals");
      expect(problems).not.to.contain("kinto.storage_max_overflow");
    }
  });

  it("exits with status 2 before listening, listing them", async () => {
    const result = await runCli(["serve", "--config", iniFile("cli.ini", KINTO_INI + UNSUPPORTED)]);
    expect(result.code).to.equal(2);
    for (const key of ["kinto.includes", "kinto.experimental_permissions_endpoint", "kinto.bucket_id_generator"])
      expect(result.stderr, key).to.contain(key);
    expect(result.stdout).not.to.contain("listening");
  });

  it("reads Kinto's tree settings: who creates buckets, the default bucket's secret, collection schemas", () => {
    const settings = loadSettings({ argv: ["--config", iniFile("tree.ini", KINTO_INI + TREE)], env: {}, defaultFile: false });
    expect(settings.bucketCreatePrincipals).to.deep.equal(["account:admin"]);
    expect(settings.defaultBucketHmacSecret).to.equal("salt");
    expect(settings.collectionSchemaValidation).to.equal(true);
  });
});
