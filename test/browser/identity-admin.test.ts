/**
 * The admin page signs people in for real (issue 27): Alice signs up for an account, creates an
 * article and shares it with `account:bob` by typing the name; Bob, signed in with his account in
 * another browser context, sees it appear live (the page follows the feed, no reload) and
 * disappear when Alice unshares it. No password ever reaches localStorage or sessionStorage: every
 * write to them is recorded from the first script on. Debian's chromium through playwright-core,
 * as the admin page test.
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import { expect } from "chai";
import { type Browser, type BrowserContext, type Page } from "playwright-core";
import { TOKENS } from "../../src/bootstrap/tokens.js";
import { recordStorageWrites, type PageGlobals } from "../support/storage-writes.js";
import { launchChromium, requireBuiltAdminPage, requireChromium } from "../support/chromium.js";
import { PROJECT_ROOT } from "../support/tessera-process.js";
import { startTestServer, userId, type TestServer } from "../support/http.js";

const SCREENSHOTS = process.env.TESSERA_SCREENSHOTS ? path.join(PROJECT_ROOT, "docs", "screenshots") : undefined;
const ALICE_PASSWORD = "correct horse battery";
const BOB_PASSWORD = "bob's long secret";
const DAVE_PASSWORD = "dave's first secret";
const NEW_PASSWORD = "dave's newer secret";
/**
 * Accounts and, for development, Basic Auth; anyone may sign up, every signed-in user may see the
 * accounts (to pick one). The scrypt cost is lowered for speed (the hasher's own test runs the default).
 */
const SERVER_SETTINGS: Record<string, string> = {
  "multiauth.policies": "account basicauth",
  account_create_principals: "system.Everyone",
  account_read_principals: "system.Authenticated",
  account_scrypt_cost: "4",
};

interface StorageState {
  writes: [string, string, string][];
  now: string[];
}

describe("admin page: accounts, sharing by name, live collection", function () {
  this.timeout(60_000);
  let browser: Browser;
  let server: TestServer;
  const problems: string[] = [];
  const contexts: BrowserContext[] = [];

  before(async function () {
    requireBuiltAdminPage(this);
    requireChromium(this);
    browser = await launchChromium();
    server = await startTestServer(SERVER_SETTINGS);
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
  });
  afterEach(async () => {
    for (const context of contexts.splice(0)) await context.close();
    // CSP violations and script errors show up in the console: none is acceptable.
    expect(problems.splice(0)).to.deep.equal([]);
  });

  async function newPage(): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1000, height: 720 } });
    contexts.push(context);
    await context.addInitScript(recordStorageWrites);
    const page = await context.newPage();
    page.on("console", (message) => {
      if (message.type() === "error" && !/status of 4\d\d/.test(message.text())) problems.push(message.text());
    });
    page.on("pageerror", (error) => problems.push(error.message));
    return page;
  }

  /** Every storage write the page made, and what the storages hold now. */
  async function storageOf(page: Page): Promise<StorageState> {
    return page.evaluate(() => ({
      writes: (globalThis as unknown as PageGlobals).storageWrites,
      now: [(globalThis as unknown as PageGlobals).localStorage, (globalThis as unknown as PageGlobals).sessionStorage].flatMap((storage) =>
        Array.from({ length: storage.length }, (_, i) => `${storage.key(i)}=${storage.getItem(storage.key(i) ?? "")}`),
      ),
    }));
  }

  /** Neither the password nor anything it can be read back from (a Basic credential) was ever stored. */
  async function expectNoPasswordStored(page: Page, user: string, password: string): Promise<void> {
    const { writes, now } = await storageOf(page);
    const basic = Buffer.from(`${user}:${password}`).toString("base64");
    for (const stored of [...writes.map(([where, key, value]) => `${where} ${key}=${value}`), ...now]) {
      expect(stored).to.not.contain(password);
      expect(stored).to.not.contain(basic);
    }
  }

  async function screenshot(page: Page, name: string): Promise<void> {
    if (!SCREENSHOTS) return;
    mkdirSync(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
  }

  /** An account made through the API (Kinto's sign-up request), for the tests where the page does not make it. */
  async function account(id: string, password: string): Promise<void> {
    const created = await server.request("POST", "/v1/accounts", { body: { data: { id, password } } });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
  }

  /** Polls (bounded: 10 s) until `check` holds. */
  async function until(check: () => Promise<boolean>, what: string): Promise<void> {
    for (let attempt = 0; attempt < 200; attempt++) {
      if (await check()) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`timed out waiting for ${what}`);
  }

  const titlesOf = (page: Page) =>
    page.$$eval("#records tbody tr", (rows) =>
      rows.map((row) => (JSON.parse(row.querySelector("td.data")?.textContent ?? "{}") as { title?: string }).title),
    );

  async function openCollection(page: Page, name: string): Promise<void> {
    await page.click(`#resources a[data-collection=${name}]`);
    await page.waitForSelector("#collection-view", { state: "visible" });
    await page.waitForSelector("#live-state:text-is('· live')");
  }

  async function signIn(
    page: Page,
    user: string,
    password: string,
    button = "#sign-in button[type=submit]",
    shot?: string,
  ): Promise<string> {
    await page.goto(`${server.url}/v1/admin/`);
    await page.fill("#sign-in input[name=user]", user);
    await page.fill("#sign-in input[name=password]", password);
    if (shot !== undefined) await screenshot(page, shot);
    await page.click(button);
    await page.waitForSelector("#home-view", { state: "visible" });
    return (await page.textContent("#user-id")) ?? "";
  }

  /** Alice's page: a new article, then its permissions panel. */
  async function createArticle(page: Page, title: string): Promise<void> {
    await page.click("#new-record");
    await page.fill("#record-data", JSON.stringify({ title }));
    await page.click("#record-form button[type=submit]");
    await page.waitForSelector("#permissions-panel", { state: "visible" });
  }

  async function savePermissions(page: Page): Promise<void> {
    await page.click("#permissions-form button[type=submit]");
    await page.waitForSelector("#message:has-text('Permissions saved.')");
  }

  it("Alice signs up and shares with account:bob by name; Bob sees it come and go live; no password is stored", async () => {
    await account("bob", BOB_PASSWORD);
    const bobPage = await newPage();
    expect(await signIn(bobPage, "bob", BOB_PASSWORD)).to.equal("account:bob");
    expect(await bobPage.textContent("#home-user-id")).to.equal("account:bob");
    await openCollection(bobPage, "articles");
    expect(await titlesOf(bobPage)).to.deep.equal([]);
    let bobNavigations = 0;
    bobPage.on("framenavigated", (frame) => {
      if (frame === bobPage.mainFrame()) bobNavigations++;
    });

    const alicePage = await newPage();
    expect(await signIn(alicePage, "alice", ALICE_PASSWORD, "#sign-up", "6-sign-up")).to.equal("account:alice");
    await openCollection(alicePage, "articles");
    await createArticle(alicePage, "not for bob");
    await alicePage.click("#to-collection");
    await alicePage.waitForSelector("#collection-view", { state: "visible" });
    await createArticle(alicePage, "for bob");
    await alicePage.fill("#permissions-form input[name=principal]", "account:bob");
    await alicePage.click("#add-principal");
    const readForBob = alicePage.getByLabel("read for account:bob", { exact: true });
    if (!(await readForBob.isChecked())) await readForBob.check();
    await savePermissions(alicePage);
    await screenshot(alicePage, "7-share-by-name");
    // Readable principals: the names themselves, Alice's own marked as hers.
    expect(await alicePage.$$eval("#permissions tbody td.principal", (cells) => cells.map((c) => c.textContent))).to.deep.equal([
      "account:alice (you)",
      "account:bob",
    ]);

    await until(async () => (await titlesOf(bobPage)).length === 1, "the shared article on Bob's open page");
    expect(await titlesOf(bobPage)).to.deep.equal(["for bob"]);
    await screenshot(bobPage, "8-live-collection");

    await readForBob.uncheck();
    await savePermissions(alicePage);
    await until(async () => (await titlesOf(bobPage)).length === 0, "the unshared article leaving Bob's page");
    // Written and deleted elsewhere (through the API): it comes and goes too.
    const alice = `alice:${ALICE_PASSWORD}`;
    const put = await server.request("PUT", "/v1/articles/elsewhere", {
      user: alice,
      body: { data: { title: "from elsewhere" }, permissions: { read: ["account:bob"] } },
    });
    expect(put.status).to.equal(201);
    await until(async () => (await titlesOf(bobPage)).includes("from elsewhere"), "the article written elsewhere");
    expect((await server.request("DELETE", "/v1/articles/elsewhere", { user: alice })).status).to.equal(200);
    await until(async () => (await titlesOf(bobPage)).length === 0, "the deleted article leaving Bob's page");
    expect(bobNavigations).to.equal(0); // live, not reloaded

    await expectNoPasswordStored(alicePage, "alice", ALICE_PASSWORD);
    await expectNoPasswordStored(bobPage, "bob", BOB_PASSWORD);
  });

  it("changes an account's password: same id, the old password refused; a reload asks to sign in again", async () => {
    await account("dave", DAVE_PASSWORD);
    const page = await newPage();
    await signIn(page, "dave", DAVE_PASSWORD);
    const before = (await server.request("GET", "/v1/", { user: `dave:${DAVE_PASSWORD}` })).body.user.id as string;
    expect(before).to.equal("account:dave");
    expect(await page.isVisible("#change-password")).to.equal(true);
    await page.fill("#change-password input[name=password]", NEW_PASSWORD);
    await page.fill("#change-password input[name=confirm]", `${NEW_PASSWORD}!`);
    await page.click("#change-password button[type=submit]");
    await page.waitForSelector("#message:has-text('The two passwords differ.')");
    await page.fill("#change-password input[name=confirm]", NEW_PASSWORD);
    await page.click("#change-password button[type=submit]");
    await page.waitForSelector("#message:has-text('Password changed.')");
    expect((await server.request("GET", "/v1/", { user: `dave:${NEW_PASSWORD}` })).body.user.id).to.equal(before);
    // The old password is no longer the account's (Basic Auth, on for development, takes it as another user).
    expect((await server.request("GET", "/v1/", { user: `dave:${DAVE_PASSWORD}` })).body.user.id).to.equal(userId(`dave:${DAVE_PASSWORD}`));
    // The page goes on with the new password, held in memory.
    await openCollection(page, "articles");
    await expectNoPasswordStored(page, "dave", DAVE_PASSWORD);
    await expectNoPasswordStored(page, "dave", NEW_PASSWORD);
    await page.reload();
    await page.waitForSelector("#sign-in-view", { state: "visible" });
    expect(await page.isVisible("#session")).to.equal(false);
  });

  it("offers the accounts one may see when sharing, and shows Basic Auth hashes short with the full id in a tooltip", async () => {
    await account("erin", "erin's password");
    await account("frank", "frank's password");
    const page = await newPage();
    await signIn(page, "erin", "erin's password");
    await openCollection(page, "articles");
    await createArticle(page, "choices");
    // The suggestions come once the page has read the accounts (GET /v1/accounts), after the panel shows.
    await page.waitForSelector("#principal-choices option[value='account:frank']", { state: "attached" });
    const offered = await page.$$eval("#principal-choices option", (options) => options.map((o) => o.value));
    expect(offered).to.include.members(["account:erin", "account:frank", "system.Authenticated", "system.Everyone"]);
    // A bare name is that account; a hash stays what it is.
    const carol = userId("carol:pw");
    for (const typed of ["frank", carol]) {
      await page.fill("#permissions-form input[name=principal]", typed);
      await page.click("#add-principal");
    }
    await savePermissions(page);
    const cells = await page.$$eval("#permissions tbody td.principal", (all) => all.map((c) => [c.textContent, c.getAttribute("title")]));
    expect(cells).to.deep.equal([
      ["account:erin (you)", null],
      ["account:frank", null],
      [`${carol.slice(0, "basicauth:".length + 8)}…`, carol],
    ]);
    const id = ((await page.textContent("#record-title")) ?? "").split(" / ")[1] ?? "";
    const stored = (await server.request("GET", `/v1/articles/${id}`, { user: "erin:erin's password" })).body.permissions;
    expect(stored.read).to.have.members(["account:frank", carol]);
  });

  it("refuses a taken account name, and says so when a name and password are not an account's", async () => {
    await account("henry", "henry's password");
    const page = await newPage();
    await page.goto(`${server.url}/v1/admin/`);
    await page.fill("#sign-in input[name=user]", "henry");
    await page.fill("#sign-in input[name=password]", "another password");
    await page.click("#sign-up");
    await page.waitForSelector("#message.error");
    expect(await page.isVisible("#sign-in-view")).to.equal(true);
    // Basic Auth is on for development: any pair passes, as a user that is not an account.
    const shown = await signIn(page, "carol", "pw");
    expect(shown).to.match(/^basicauth:[0-9a-f]{8}…$/);
    expect(await page.getAttribute("#user-id", "title")).to.equal(userId("carol:pw"));
    expect(await page.isVisible("#identity-note")).to.equal(true);
    expect(await page.isVisible("#change-password")).to.equal(false);
    await page.click("#sign-out");
    await page.waitForSelector("#sign-in-view", { state: "visible" });
    expect(await page.inputValue("#sign-in input[name=password]")).to.equal("");
  });

  it("ignores an invented provider answer and shows hostile principals as text", async () => {
    const page = await newPage();
    // A redirect this tab never started (a stolen or forged code): refused, and the code leaves the address bar.
    for (const query of ["?code=stolen-code&state=invented", "?error=access_denied&state=invented&iss=https%3A%2F%2Fevil.example"]) {
      await page.goto(`${server.url}/v1/admin/${query}`);
      await page.waitForSelector("#message:has-text('not started from this tab')");
      expect(new URL(page.url()).search).to.equal("");
      expect(await page.isVisible("#sign-in-view")).to.equal(true);
    }
    await account("ivan", "ivan's password");
    await signIn(page, "ivan", "ivan's password");
    await openCollection(page, "articles");
    await createArticle(page, "hostile");
    const hostile = 'group:<img src=x onerror="document.title=1">';
    await page.fill("#permissions-form input[name=principal]", hostile);
    await page.click("#add-principal");
    await savePermissions(page);
    expect(await page.$$eval("#permissions tbody td.principal", (cells) => cells.map((c) => c.textContent))).to.include(hostile);
    expect(await page.$$("#permissions img")).to.deep.equal([]);
  });

  it("reopens the feed after the server ends a stream, from the last event id, missing and repeating nothing", async () => {
    // Streams that last a second: the page must resume each time (Last-Event-ID), as after a proxy's cut.
    const short = await startTestServer({ ...SERVER_SETTINGS, feed_max_lifetime_seconds: "1" });
    try {
      const judy = "judy:judy's password";
      expect(
        (await short.request("POST", "/v1/accounts", { body: { data: { id: "judy", password: "judy's password" } } })).status,
      ).to.equal(201);
      const page = await newPage();
      const streams: (string | undefined)[] = [];
      page.on("request", (request) => {
        if (request.headers().accept === "text/event-stream") streams.push(request.headers()["last-event-id"]);
      });
      await page.goto(`${short.url}/v1/admin/`);
      await page.fill("#sign-in input[name=user]", "judy");
      await page.fill("#sign-in input[name=password]", "judy's password");
      await page.click("#sign-in button[type=submit]");
      await page.waitForSelector("#home-view", { state: "visible" });
      await openCollection(page, "notes");
      const written: string[] = [];
      for (const n of [1, 2, 3]) {
        const title = `note ${n}`;
        expect((await short.request("POST", "/v1/notes", { user: judy, body: { data: { title } } })).status).to.equal(201);
        written.push(title);
        await until(async () => (await titlesOf(page)).length === written.length, `${title} on the page`);
        await new Promise((resolve) => setTimeout(resolve, 1200)); // past a stream's lifetime
      }
      expect([...(await titlesOf(page))].sort()).to.deep.equal(written);
      expect(streams.length).to.be.greaterThan(2);
      expect(
        streams.slice(1).every((id) => id !== undefined && /^\d+$/.test(id)),
        JSON.stringify(streams),
      ).to.equal(true);
    } finally {
      // The page first: a page left open would try to reopen the feed of a stopped server.
      for (const context of contexts.splice(0)) await context.close();
      await short.stop();
    }
  });

  it("re-reads the listing on resync: a group given while the page is open brings the group's articles", async () => {
    await account("kate", "kate's password");
    await account("leo", "leo's password");
    const page = await newPage();
    await signIn(page, "leo", "leo's password");
    await openCollection(page, "articles");
    const shared = await server.request("PUT", "/v1/articles/for-the-team", {
      user: "kate:kate's password",
      body: { data: { title: "for the team" }, permissions: { read: ["group:team"] } },
    });
    expect(shared.status).to.equal(201);
    let navigations = 0;
    page.on("framenavigated", (frame) => {
      if (frame === page.mainFrame()) navigations++;
    });
    // Leo joins the team: the feed ends his stream with `resync`, the page re-reads and follows again.
    const memberships = await server.running.container.getAsync(TOKENS.Memberships);
    await memberships.add("group:team", ["account:leo"]);
    await until(async () => (await titlesOf(page)).includes("for the team"), "the team's article after the resync");
    expect(navigations).to.equal(0);
    await page.waitForSelector("#live-state:text-is('· live')");
    const later = await server.request("PUT", "/v1/articles/later", {
      user: "kate:kate's password",
      body: { data: { title: "later" }, permissions: { read: ["group:team"] } },
    });
    expect(later.status).to.equal(201);
    await until(async () => (await titlesOf(page)).includes("later"), "an article shared after the resync");
  });
});
