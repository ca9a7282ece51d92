import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect } from "chai";
import { loadSettings, SettingsError, type Settings } from "../../src/bootstrap/settings.js";

const SECRET = { TESSERA_USERID_HMAC_SECRET: "s3cret" };

describe("settings", () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), "tessera-settings-"));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  let fileCount = 0;
  const iniFile = (text: string): string => {
    const file = path.join(dir, `config-${++fileCount}.ini`);
    writeFileSync(file, text);
    return file;
  };
  const load = (env: Record<string, string> = {}, argv: string[] = []): Settings =>
    loadSettings({ argv, env: { ...SECRET, ...env }, defaultFile: false });
  const fromFile = (text: string, env: Record<string, string> = {}): Settings => load(env, ["--config", iniFile(text)]);
  const problemsOf = (run: () => unknown): string[] => {
    try {
      run();
    } catch (error) {
      expect(error).to.be.instanceOf(SettingsError);
      return [...(error as SettingsError).problems];
    }
    expect.fail("expected a SettingsError");
  };

  describe("defaults", () => {
    it("matches the contract's table", () => {
      const s = load();
      expect(s).to.deep.include({
        listenHost: "127.0.0.1",
        listenPort: 8888,
        resources: [],
        permission: undefined,
        multiauthPolicies: ["basicauth"],
        paginateBy: undefined,
        storageMaxFetchSize: 10000,
        batchMaxRequests: 25,
        retryAfterSeconds: 30,
        backoff: undefined,
        corsOrigins: ["*"],
        corsMaxAgeSeconds: 3600,
        versionPrefixRedirectEnabled: true,
        trailingSlashRedirectEnabled: true,
        httpScheme: undefined,
        httpHost: undefined,
        publicSettings: [],
        readonly: false,
        maxBodyBytes: 1048576,
        heartbeatTimeoutSeconds: 10,
      });
      expect(s.storage.backend).to.equal("memory");
      expect(s.cache.backend).to.equal("memory");
      expect(s.errorInfoLink).to.match(/^https:\/\//);
      expect(s.userIdHmacSecret).to.equal("s3cret");
    });

    it("uses the spec's pool defaults: relational 10, key-value 50", () => {
      const s = load({ TESSERA_PERMISSION_BACKEND: "redis", TESSERA_PERMISSION_URL: "redis://localhost:6379/1" });
      expect(s.permission).to.deep.include({
        backend: "redis",
        url: "redis://localhost:6379/1",
        poolSize: 50,
        maxOverflow: 10,
        maxBacklog: -1,
        poolRecycleSeconds: -1,
        poolTimeoutSeconds: 30,
      });
      const pg = load({ TESSERA_STORAGE_BACKEND: "postgresql", TESSERA_STORAGE_URL: "postgresql://localhost/t" });
      expect(pg.storage.poolSize).to.equal(10);
    });
  });

  describe("config file", () => {
    it("reads an [app:main] section, with and without the tessera. prefix", () => {
      const s = fromFile(["[app:main]", "tessera.paginate_by = 20", "readonly = true", "", "[server:main]", "port = 1"].join("\n"));
      expect(s.paginateBy).to.equal(20);
      expect(s.readonly).to.equal(true);
    });

    it("accepts a comment after a section header", () => {
      const s = fromFile("retry_after_seconds = 9\n[app:main] ; the application\npaginate_by = 4\n");
      expect(s.paginateBy).to.equal(4);
      expect(s.retryAfterSeconds).to.equal(30);
    });

    it("warns about settings in sections it does not read, not about empty ones", () => {
      const s = fromFile("[tessera]\npaginate_by = 4\n[server:main]\n");
      expect(s.paginateBy).to.equal(undefined);
      expect(s.warnings.join("\n")).to.contain("[tessera]").and.not.contain("server:main");
      expect(fromFile("[app:main]\npaginate_by = 4\n[server:main]\n").warnings).to.deep.equal([]);
    });

    it("reads a file with no section", () => {
      const s = fromFile("; a comment\n# another\nbatch_max_requests = 5\ntessera.http_host: example.com\n");
      expect(s.batchMaxRequests).to.equal(5);
      expect(s.httpHost).to.equal("example.com");
    });

    it("joins indented continuation lines, so lists can span lines", () => {
      const s = fromFile(
        [
          "[app:main]",
          "resources =",
          "    notes:user",
          "    articles:shareable",
          "permission_backend = memory",
          "cors_origins = https://a.example.com",
          "  https://*.b.example.com",
        ].join("\n"),
      );
      expect(s.resources).to.deep.equal([
        { name: "notes", kind: "user" },
        { name: "articles", kind: "shareable" },
      ]);
      expect(s.corsOrigins).to.deep.equal(["https://a.example.com", "https://*.b.example.com"]);
    });

    it("accepts Windows line endings and a byte-order mark", () => {
      const s = fromFile("\uFEFF[app:main]\r\npaginate_by = 3\r\nresources = notes:user\r\n");
      expect(s.paginateBy).to.equal(3);
      expect(s.resources).to.deep.equal([{ name: "notes", kind: "user" }]);
      expect(s.warnings.join("\n")).to.not.contain("app");
    });

    it("is chosen by --config=FILE and by TESSERA_CONFIG", () => {
      const file = iniFile("paginate_by = 7\n");
      expect(load({}, [`--config=${file}`]).paginateBy).to.equal(7);
      expect(load({ TESSERA_CONFIG: file }).paginateBy).to.equal(7);
    });

    it("reports a file it cannot read", () => {
      const problems = problemsOf(() => load({}, ["--config", path.join(dir, "missing.ini")]));
      expect(problems.join("\n")).to.contain("missing.ini");
    });

    it("refuses a setting given prefixed and unprefixed with different values, and accepts equal ones", () => {
      const problems = problemsOf(() => fromFile("paginate_by = 5\ntessera.paginate_by = 6\n"));
      expect(problems.join("\n")).to.contain("paginate_by");
      expect(fromFile("paginate_by = 5\ntessera.paginate_by = 5\n").paginateBy).to.equal(5);
    });

    it("refuses a line it cannot read", () => {
      expect(problemsOf(() => fromFile("[app:main]\nthis line has no separator\n")).join("\n")).to.contain("line 2");
    });
  });

  describe("environment", () => {
    it("overrides the file, which overrides the defaults", () => {
      const file = "paginate_by = 5\nretry_after_seconds = 9\n";
      const s = fromFile(file, { TESSERA_PAGINATE_BY: "50" });
      expect(s.paginateBy).to.equal(50);
      expect(s.retryAfterSeconds).to.equal(9);
      expect(s.batchMaxRequests).to.equal(25);
    });

    it("maps dotted names: TESSERA_MULTIAUTH_POLICIES is multiauth.policies", () => {
      expect(load({ TESSERA_MULTIAUTH_POLICIES: "basicauth custom" }).multiauthPolicies).to.deep.equal(["basicauth", "custom"]);
    });

    it("gives per-collection settings from the environment the declared collection's own case", () => {
      const s = load({
        TESSERA_RESOURCES: "MyNotes:shareable",
        TESSERA_PERMISSION_BACKEND: "memory",
        TESSERA_MYNOTES_READ_PRINCIPALS: "system.Everyone",
        TESSERA_MYNOTES_CACHE_EXPIRES_SECONDS: "5",
      });
      expect(s.all.MyNotes_read_principals).to.equal("system.Everyone");
      expect(s.all.MyNotes_cache_expires_seconds).to.equal(5);
      expect(s.warnings.join("\n")).to.not.contain("mynotes");
    });

    it("ignores other variables and TESSERA_CONFIG itself as a setting", () => {
      const s = load({ PATH: "/bin", HOME: "/root" });
      expect(s.all).to.not.have.property("path");
      expect(s.all).to.not.have.property("config");
    });
  });

  describe("values", () => {
    it("parses JSON when it parses, else keeps the string", () => {
      const s = load({
        TESSERA_BATCH_MAX_REQUESTS: "null",
        TESSERA_READONLY: "true",
        TESSERA_BACKOFF: "10",
        TESSERA_HTTP_HOST: "example.com:81",
        TESSERA_ARTICLES_CACHE_EXPIRES_SECONDS: "60",
        TESSERA_EOS_MESSAGE: '"quoted"',
      });
      expect(s.batchMaxRequests).to.equal(null);
      expect(s.readonly).to.equal(true);
      expect(s.backoff).to.equal("10");
      expect(s.httpHost).to.equal("example.com:81");
      expect(s.all.articles_cache_expires_seconds).to.equal(60);
      expect(s.all.eos_message).to.equal("quoted");
    });

    it("accepts the usual INI spellings of booleans", () => {
      for (const [text, expected] of [
        ["True", true],
        ["false", false],
        ["yes", true],
        ["Off", false],
        ["1", true],
        ["0", false],
      ] as const) {
        expect(fromFile(`readonly = ${text}\n`).readonly, text).to.equal(expected);
      }
    });

    it("splits lists on any whitespace, keeping commas inside principals", () => {
      const s = load({
        TESSERA_CORS_ORIGINS: " https://a.example.com \t https://b.example.com\n",
        TESSERA_PUBLIC_SETTINGS: "paginate_by  tessera.readonly",
      });
      expect(s.corsOrigins).to.deep.equal(["https://a.example.com", "https://b.example.com"]);
      expect(s.publicSettings).to.deep.equal(["paginate_by", "tessera.readonly"]);
      const principals = fromFile("articles_read_principals = group:a,b  system.Authenticated\n");
      expect(principals.all.articles_read_principals).to.equal("group:a,b  system.Authenticated");
    });

    it("reads replica URLs of PostgreSQL backends, and refuses them elsewhere or when they are not PostgreSQL URLs", () => {
      const pg = { TESSERA_STORAGE_BACKEND: "postgresql", TESSERA_STORAGE_URL: "postgresql://p/x" };
      const s = load({
        ...pg,
        TESSERA_STORAGE_REPLICA_URLS: "postgresql://r1/x postgres://r2/x",
        TESSERA_REPLICA_MAX_WAIT_MILLISECONDS: "25",
      });
      expect(s.storage.replicaUrls).to.deep.equal(["postgresql://r1/x", "postgres://r2/x"]);
      expect(s.storage.replicaMaxWaitMs).to.equal(25);
      expect(load(pg).storage.replicaUrls).to.deep.equal([]);
      expect(problemsOf(() => load({ ...pg, TESSERA_STORAGE_REPLICA_URLS: "redis://r/0" }))).to.deep.equal([
        'storage_replica_urls: "redis://r/0" is not a postgresql:// URL',
      ]);
      expect(
        problemsOf(() => load({ TESSERA_PERMISSION_BACKEND: "memory", TESSERA_PERMISSION_REPLICA_URLS: "postgresql://r/x" })),
      ).to.deep.equal(["permission_replica_urls needs the postgresql permission backend (it is memory)"]);
    });

    it("parses resources as <name>:<kind> entries", () => {
      const s = load({ TESSERA_RESOURCES: "notes:user articles:shareable", TESSERA_PERMISSION_BACKEND: "memory" });
      expect(s.resources).to.deep.equal([
        { name: "notes", kind: "user" },
        { name: "articles", kind: "shareable" },
      ]);
    });

    it("refuses malformed resources: bad name, unknown kind, missing kind, duplicates", () => {
      const problems = problemsOf(() => load({ TESSERA_RESOURCES: "9lives:user notes:private tags notes:user notes:user bad-name:user" }));
      expect(problems.join("\n"))
        .to.contain("9lives")
        .and.contain("notes:private")
        .and.contain("tags")
        .and.contain("twice")
        .and.contain("bad-name");
    });

    it("refuses bad numbers and booleans", () => {
      const problems = problemsOf(() =>
        load({
          TESSERA_PAGINATE_BY: "lots",
          TESSERA_LISTEN_PORT: "-1",
          TESSERA_READONLY: "maybe",
          TESSERA_RETRY_AFTER_SECONDS: "1.5",
          TESSERA_ARTICLES_CACHE_EXPIRES_SECONDS: "soon",
        }),
      );
      for (const name of ["paginate_by", "listen_port", "readonly", "retry_after_seconds", "articles_cache_expires_seconds"])
        expect(problems.join("\n")).to.contain(name);
    });

    it("reads the database timeouts, feed catch-up and shutdown deadline, and refuses odd values", () => {
      const defaults = load();
      expect([defaults.storage.statementTimeoutSeconds, defaults.feedCatchUpSeconds, defaults.shutdownTimeoutSeconds]).to.deep.equal([
        15, 2, 15,
      ]);
      const set = load({
        TESSERA_STORAGE_STATEMENT_TIMEOUT_SECONDS: "0",
        TESSERA_FEED_CATCH_UP_SECONDS: "0.5",
        TESSERA_SHUTDOWN_TIMEOUT_SECONDS: "3",
      });
      expect([set.storage.statementTimeoutSeconds, set.feedCatchUpSeconds, set.shutdownTimeoutSeconds]).to.deep.equal([0, 0.5, 3]);
      const problems = problemsOf(() =>
        load({
          TESSERA_STORAGE_STATEMENT_TIMEOUT_SECONDS: "-1",
          TESSERA_CACHE_STATEMENT_TIMEOUT_SECONDS: "soon",
          TESSERA_FEED_CATCH_UP_SECONDS: "0",
          TESSERA_SHUTDOWN_TIMEOUT_SECONDS: "\u0000",
        }),
      ).join("\n");
      for (const name of [
        "storage_statement_timeout_seconds",
        "cache_statement_timeout_seconds",
        "feed_catch_up_seconds",
        "shutdown_timeout_seconds",
      ])
        expect(problems).to.contain(name);
    });

    it("refuses an http_scheme or http_host no URL can be built from", () => {
      const text = problemsOf(() => load({ TESSERA_HTTP_SCHEME: "ftp", TESSERA_HTTP_HOST: "a b:99" })).join("\n");
      expect(text).to.contain("http_scheme").and.contain("http_host");
      expect(load({ TESSERA_HTTP_SCHEME: "https", TESSERA_HTTP_HOST: "[::1]:8443" }).httpHost).to.equal("[::1]:8443");
    });

    it("refuses a listen port above 65535", () => {
      expect(problemsOf(() => load({ TESSERA_LISTEN_PORT: "70000" })).join("\n")).to.contain("listen_port");
    });

    it("refuses an eos that is not a date", () => {
      expect(problemsOf(() => load({ TESSERA_EOS: "someday" })).join("\n")).to.contain("eos");
      expect(load({ TESSERA_EOS: "2030-06-01" }).all.eos).to.equal("2030-06-01");
      expect(fromFile("eos =\n").all.eos).to.equal(null);
    });
  });

  describe("backends", () => {
    it("requires a permission backend while a shareable resource is declared", () => {
      const problems = problemsOf(() => load({ TESSERA_RESOURCES: "articles:shareable" }));
      expect(problems.join("\n")).to.contain("permission_backend").and.contain("articles");
      expect(load({ TESSERA_RESOURCES: "notes:user" }).permission).to.equal(undefined);
    });

    it("refuses an unknown backend", () => {
      for (const kind of ["storage", "permission", "cache"]) {
        const problems = problemsOf(() => load({ [`TESSERA_${kind.toUpperCase()}_BACKEND`]: "mongodb" }));
        expect(problems.join("\n"), kind).to.contain(`${kind}_backend`).and.contain("mongodb");
      }
      expect(problemsOf(() => load({ TESSERA_STORAGE_BACKEND: "redis", TESSERA_STORAGE_URL: "redis://x" })).join("\n")).to.contain(
        "storage_backend",
      );
    });

    it("requires a url for a non-memory backend", () => {
      const problems = problemsOf(() => load({ TESSERA_STORAGE_BACKEND: "postgresql", TESSERA_PERMISSION_BACKEND: "redis" }));
      expect(problems.join("\n")).to.contain("storage_url").and.contain("permission_url");
    });

    it("refuses Redis permissions and cache sharing one database and one prefix", () => {
      const redis = {
        TESSERA_PERMISSION_BACKEND: "redis",
        TESSERA_PERMISSION_URL: "redis://h/1",
        TESSERA_CACHE_BACKEND: "redis",
        TESSERA_CACHE_URL: "redis://h/1",
      };
      expect(problemsOf(() => load({ ...redis, TESSERA_PERMISSION_PREFIX: "p:", TESSERA_CACHE_PREFIX: "p:" })).join("\n")).to.contain(
        "cache_prefix",
      );
      expect(load(redis).cache.prefix).to.not.equal(load(redis).permission?.prefix);
    });

    it("requires userid_hmac_secret while basicauth is on, and not otherwise", () => {
      const run = (env: Record<string, string>) => loadSettings({ argv: [], env, defaultFile: false });
      expect(problemsOf(() => run({})).join("\n")).to.contain("userid_hmac_secret");
      expect(run({ TESSERA_MULTIAUTH_POLICIES: "custom" }).multiauthPolicies).to.deep.equal(["custom"]);
    });
  });

  it("reports every problem at once", () => {
    const problems = problemsOf(() =>
      loadSettings({
        argv: [],
        env: {
          TESSERA_STORAGE_BACKEND: "mongodb",
          TESSERA_PAGINATE_BY: "x",
          TESSERA_RESOURCES: "articles:shareable",
          TESSERA_CACHE_BACKEND: "redis",
        },
        defaultFile: false,
      }),
    );
    const text = problems.join("\n");
    for (const part of ["storage_backend", "paginate_by", "permission_backend", "cache_url", "userid_hmac_secret"])
      expect(text).to.contain(part);
    expect(problems.length).to.be.at.least(5);
  });

  it("lists unknown settings without failing", () => {
    const s = load({ TESSERA_COLOUR: "blue", TESSERA_ARTICLES_READ_PRINCIPALS: "system.Everyone" });
    expect(s.unknown).to.deep.equal(["colour"]);
  });
});
