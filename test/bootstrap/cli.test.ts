/** The `tessera` command: configuration errors, migrate and purge, each in its own process. */
import { expect } from "chai";
import { PostgresDatabase } from "../../src/adapters/postgres/postgres-database.js";
import { PostgresRecordStore } from "../../src/adapters/postgres/postgres-record-store.js";
import { runCli } from "../support/cli-process.js";
import { startServerProcess } from "../support/server-process.js";
import { SseClient } from "../sync/sse-client.js";
import { databaseUrl, ensureDatabase } from "../support/postgres.js";
import { requireService } from "../support/services.js";

const DATABASE = "tessera_cli_test";
const SIGTERM_DATABASE = "tessera_cli_sigterm_test";

describe("tessera command line", function () {
  this.timeout(30_000);

  it("reports every configuration problem at once and exits with status 2 before listening", async () => {
    const emptyConfig = ["--config", "/dev/null"]; // not the shipped development config
    const result = await runCli(["serve", ...emptyConfig], {
      resources: "articles:shareable",
      storage_backend: "mongodb",
      paginate_by: "many",
    });
    expect(result.code).to.equal(2);
    for (const problem of ["storage_backend", "paginate_by", "permission_backend", "userid_hmac_secret"])
      expect(result.stderr).to.contain(problem);
    expect(result.stdout).to.not.contain("listening");
  });

  it("serves until SIGTERM, then closes the server and exits 0", async () => {
    const server = await startServerProcess({ userid_hmac_secret: "s", resources: "notes:user" });
    expect((await fetch(`${server.url}/v1/__lbheartbeat__`)).status).to.equal(200);
    expect(await server.stop()).to.equal(0);
    const refused = await fetch(`${server.url}/v1/__lbheartbeat__`).then(
      () => false,
      () => true,
    );
    expect(refused).to.equal(true);
  });

  it("prints its usage for --help, -h and help, exits 0 and starts nothing, even without settings", async function () {
    this.timeout(90_000); // a server started by mistake is only killed after 60 s
    const variants = [["--help"], ["-h"], ["help"], ["serve", "--help"], ["purge", "-h"]];
    const results = await Promise.all(variants.map((args) => runCli(args)));
    for (const [i, args] of variants.entries()) {
      const result = results[i]!;
      expect(result.code, args.join(" ")).to.equal(0);
      expect(result.stdout, args.join(" ")).to.match(/^usage: tessera \[serve\|migrate\|purge\|help\]/);
      for (const text of ["serve", "migrate", "purge", "--config", "--before"]) expect(result.stdout).to.contain(text);
      expect(result.stdout + result.stderr, args.join(" ")).to.not.match(/listening|Invalid configuration/);
    }
  });

  it("refuses unknown or misplaced options with status 2 and its usage, before starting anything", async function () {
    this.timeout(90_000);
    const cases: [string[], string][] = [
      [["serve", "--bogus"], "Unknown option '--bogus'"],
      [["--bogus"], "Unknown option '--bogus'"],
      [["migrate", "-x"], "Unknown option '-x'"],
      [["serve", "--config"], "Option '--config <value>' argument missing"],
      [["serve", "extra"], 'unexpected argument "extra"'],
      [["serve", "--before", "1"], "--before applies to purge only"],
    ];
    const settings = { userid_hmac_secret: "s", resources: "notes:user", listen_port: "0" };
    const results = await Promise.all(cases.map(([args]) => runCli(args, settings)));
    for (const [i, [args, message]] of cases.entries()) {
      const result = results[i]!;
      expect(result.code, args.join(" ")).to.equal(2);
      expect(result.stderr, args.join(" ")).to.contain(message);
      expect(result.stderr, args.join(" ")).to.contain("usage: tessera");
      expect(result.stdout, args.join(" ")).to.not.contain("listening");
    }
  });

  it("refuses an unknown command", async () => {
    const result = await runCli(["serv"], { userid_hmac_secret: "s" });
    expect(result.code).to.equal(2);
    expect(result.stderr).to.contain("unknown command");
  });

  describe("on PostgreSQL", () => {
    requireService("postgresql");
    const settings = {
      storage_backend: "postgresql",
      storage_url: databaseUrl(DATABASE),
      permission_backend: "postgresql",
      permission_url: databaseUrl(DATABASE),
      userid_hmac_secret: "s",
      resources: "articles:shareable",
    };

    before(() => ensureDatabase(DATABASE, true));

    it("stops on SIGTERM with live feed subscribers open, logging no error", async () => {
      await ensureDatabase(SIGTERM_DATABASE, true);
      const own = { ...settings, storage_url: databaseUrl(SIGTERM_DATABASE), permission_url: databaseUrl(SIGTERM_DATABASE) };
      expect((await runCli(["migrate"], own)).code).to.equal(0);
      const server = await startServerProcess(own);
      const clients: SseClient[] = [];
      try {
        const alice = "alice:pw";
        const written = await fetch(`${server.url}/v1/articles/sigterm`, {
          method: "PUT",
          headers: { Authorization: `Basic ${Buffer.from(alice).toString("base64")}`, "Content-Type": "application/json" },
          body: JSON.stringify({ data: {} }),
        });
        expect(written.status).to.be.oneOf([200, 201]);
        // One caught up and live (the shared reads and the LISTEN connection at work), then several
        // still replaying when SIGTERM comes (test/bootstrap/shutdown-feed holds such reads deterministically).
        const live = await SseClient.open(`${server.url}/v1/articles`, { user: alice });
        clients.push(live);
        await live.waitUntil(() => live.comments.includes("live"));
        for (let i = 0; i < 5; i += 1) clients.push(await SseClient.open(`${server.url}/v1/articles?_since=0`, { user: alice }));
        expect(await server.stop()).to.equal(0);
        const errors = server.output.filter((line) => ((JSON.parse(line) as { level?: number }).level ?? 0) >= 50);
        expect(errors).to.deep.equal([]);
        expect(server.output.some((line) => line.includes('"msg":"tessera stopping"'))).to.equal(true);
      } finally {
        for (const client of clients) await client.close();
        await server.stop();
      }
    });

    it("migrates a fresh database, and again with nothing to do", async () => {
      expect((await runCli(["migrate"], settings)).code).to.equal(0);
      const again = await runCli(["migrate"], settings);
      expect(again.code).to.equal(0);
      expect(again.stdout).to.contain("up to date");
    });

    it("purges only the tombstones older than --before", async () => {
      const database = new PostgresDatabase({ url: databaseUrl(DATABASE) });
      const records = new PostgresRecordStore(database);
      try {
        const scope = { collection: "articles", parentId: "" };
        await records.create(scope, "old", {});
        const old = await records.delete(scope, "old");
        await records.create(scope, "recent", {});
        const recent = await records.delete(scope, "recent", { lastModified: old.lastModified + 60_000 });
        const result = await runCli(["purge", "--before", String(recent.lastModified)], settings);
        expect(result.code).to.equal(0);
        expect(result.stdout).to.contain("purged 1 tombstone");
        const left = await records.list(scope, {
          filters: [],
          sort: [{ field: "last_modified", descending: true }],
          limit: 10,
          includeDeleted: true,
        });
        expect(left.map((entry) => entry.id)).to.deep.equal(["recent"]);
      } finally {
        await database.close();
      }
    });
  });
});
