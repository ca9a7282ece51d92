/**
 * The admin page in a real browser: Debian's chromium driven by playwright-core (which downloads
 * nothing). Outside CI the suite is skipped, saying why, when no chromium is installed; under
 * CI=true it fails instead. `npm run screenshots` also saves each page under docs/screenshots/.
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import { expect } from "chai";
import { type Browser, type Page } from "playwright-core";
import { launchChromium, requireBuiltAdminPage, requireChromium } from "../support/chromium.js";
import { PROJECT_ROOT } from "../support/tessera-process.js";
import { startTestServer, type TestServer } from "../support/http.js";

const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
const SCREENSHOTS = process.env.TESSERA_SCREENSHOTS ? path.join(PROJECT_ROOT, "docs", "screenshots") : undefined;

describe("admin page in a browser", function () {
  this.timeout(60_000);
  let browser: Browser;
  let server: TestServer;
  const problems: string[] = [];

  before(async function () {
    requireBuiltAdminPage(this);
    requireChromium(this);
    browser = await launchChromium();
    server = await startTestServer();
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
  });
  afterEach(() => {
    // CSP violations and script errors show up in the console: none is acceptable.
    expect(problems).to.deep.equal([]);
  });

  async function newPage(): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1000, height: 720 } });
    const page = await context.newPage();
    page.on("console", (message) => {
      if (message.type() === "error" && !/status of 4\d\d/.test(message.text())) problems.push(message.text());
    });
    page.on("pageerror", (error) => problems.push(error.message));
    return page;
  }

  async function screenshot(page: Page, name: string): Promise<void> {
    if (!SCREENSHOTS) return;
    mkdirSync(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
  }

  async function signIn(page: Page, user: string, password: string): Promise<string> {
    await page.goto(`${server.url}/v1/admin/`);
    await page.fill("#sign-in input[name=user]", user);
    await page.fill("#sign-in input[name=password]", password);
    await page.click("#sign-in button[type=submit]");
    await page.waitForSelector("#home-view", { state: "visible" });
    return (await page.textContent("#home-user-id")) ?? "";
  }

  async function openCollection(page: Page, name: string): Promise<void> {
    await page.click(`#resources a[data-collection=${name}]`);
    await page.waitForSelector("#collection-view", { state: "visible" });
  }

  /** Polls (bounded: 10 s) until `check` holds; page scripts cannot be evaluated from strings under the CSP. */
  async function until(check: () => Promise<boolean>, what: string): Promise<void> {
    for (let attempt = 0; attempt < 200; attempt++) {
      if (await check()) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`timed out waiting for ${what}`);
  }

  const rowsOf = (page: Page) =>
    page.$$eval("#records tbody tr", (rows) => rows.map((row) => row.querySelector("td.data")?.textContent ?? ""));

  it("is served by the service itself, under a strict Content-Security-Policy", async () => {
    const page = await fetch(`${server.url}/v1/admin/`);
    expect(page.status).to.equal(200);
    expect(page.headers.get("content-type")).to.match(/^text\/html/);
    expect(page.headers.get("content-security-policy")).to.equal(CSP);
    const script = await fetch(`${server.url}/v1/admin/main.js`);
    expect(script.headers.get("content-type")).to.match(/^text\/javascript/);
    expect(script.headers.get("content-security-policy")).to.equal(CSP);
    const bare = await fetch(`${server.url}/v1/admin`, { redirect: "manual" });
    expect([bare.status, bare.headers.get("location")]).to.deep.equal([307, "/v1/admin/"]);
    const off = await startTestServer({ admin_enabled: "false" });
    try {
      expect((await fetch(`${off.url}/v1/admin/`)).status).to.not.equal(200);
    } finally {
      await off.stop();
    }
  });

  it("shows who you are and the declared resources", async () => {
    const page = await newPage();
    await page.goto(`${server.url}/v1/admin/`);
    await page.waitForSelector("#sign-in-view", { state: "visible" });
    // Nobody is signed in yet: no "Signed in as" and no "Sign out".
    expect(await page.isVisible("#session")).to.equal(false);
    expect(await page.getByText("Signed in as").isVisible()).to.equal(false);
    expect(await page.getByRole("button", { name: "Sign out" }).isVisible()).to.equal(false);
    await screenshot(page, "1-sign-in");
    const shown = await signIn(page, "alice", "pw");
    const root = (await server.request("GET", "/v1/", { user: "alice:pw" })).body;
    expect(shown).to.equal(root.user.id);
    expect(await page.isVisible("#session")).to.equal(true);
    expect(await page.$$eval("#principals li", (items) => items.map((i) => i.textContent))).to.deep.equal(root.user.principals);
    // The group resource is built in beside those declared, a permission backend being configured.
    expect(await page.$$eval("#resources a", (links) => links.map((a) => a.dataset.collection))).to.deep.equal([
      "notes",
      "articles",
      "groups",
    ]);
    await screenshot(page, "2-home");
    await page.context().close();
  });

  it("browses a collection with filters, sort and keyset pages; edits with inline validation errors; deletes", async () => {
    for (const n of [1, 2, 3, 4, 5])
      await server.request("POST", "/v1/notes", { user: "carol:pw", body: { data: { n, title: `note ${n}` } } });
    const page = await newPage();
    await signIn(page, "carol", "pw");
    await openCollection(page, "notes");
    await page.fill("#list-form input[name=filters]", "gt_n=1");
    await page.fill("#list-form input[name=sort]", "-n");
    await page.fill("#list-form input[name=limit]", "2");
    await page.click("#list-form button[type=submit]");
    await until(async () => (await rowsOf(page)).length === 2, "two rows");
    const n = async () => (await rowsOf(page)).map((data) => (JSON.parse(data) as { n: number }).n);
    expect(await n()).to.deep.equal([5, 4]);
    expect(await page.textContent("#total")).to.equal("4 records match");
    await screenshot(page, "3-collection");
    await page.click("#next-page");
    await until(async () => (await rowsOf(page))[0]?.includes('"n":3') ?? false, "the second page");
    expect(await n()).to.deep.equal([3, 2]);
    expect(await page.isVisible("#next-page")).to.equal(false);

    await page.click("#records tbody tr:first-child");
    await page.waitForSelector("#record-view", { state: "visible" });
    await page.fill("#record-data", "{ not json");
    await page.click("#record-form button[type=submit]");
    expect(await page.textContent("#record-errors")).to.contain("Not JSON");
    await page.fill("#record-data", JSON.stringify({ id: "another-id", n: 3 }));
    await page.click("#record-form button[type=submit]");
    await until(async () => !((await page.textContent("#record-errors")) ?? "").includes("Not JSON"), "the service's validation errors");
    expect(await page.textContent("#record-errors")).to.equal("body id: Object id does not match existing object");
    await screenshot(page, "4-record-errors");
    await page.fill("#record-data", JSON.stringify({ n: 30, title: "edited" }));
    await page.click("#record-form button[type=submit]");
    await page.waitForSelector("#message:has-text('Saved.')");
    const id = (await page.textContent("#record-title"))?.split(" / ")[1] ?? "";
    expect((await server.request("GET", `/v1/notes/${id}`, { user: "carol:pw" })).body.data).to.include({ n: 30, title: "edited" });

    await page.click("#delete-record");
    await page.waitForSelector("#collection-view", { state: "visible" });
    expect((await server.request("GET", `/v1/notes/${id}`, { user: "carol:pw" })).status).to.equal(404);
    await page.context().close();
  });

  it("shares a record from one user to another through the page", async () => {
    const bobPage = await newPage();
    const bob = await signIn(bobPage, "bob", "secret");
    await openCollection(bobPage, "articles");
    expect(await rowsOf(bobPage)).to.deep.equal([]);

    const alicePage = await newPage();
    await signIn(alicePage, "alice", "pw");
    await openCollection(alicePage, "articles");
    await alicePage.click("#new-record");
    await alicePage.fill("#record-data", JSON.stringify({ title: "for bob" }));
    await alicePage.click("#record-form button[type=submit]");
    await alicePage.waitForSelector("#permissions-panel", { state: "visible" });
    await alicePage.fill("#permissions-form input[name=principal]", bob);
    await alicePage.click("#add-principal");
    const readForBob = alicePage.getByLabel(`read for ${bob}`, { exact: true });
    if (!(await readForBob.isChecked())) await readForBob.check();
    await screenshot(alicePage, "5-permissions");
    await alicePage.click("#permissions-form button[type=submit]");
    await alicePage.waitForSelector("#message:has-text('Permissions saved.')");
    expect(await readForBob.isChecked()).to.equal(true);

    await bobPage.click("#to-home");
    await openCollection(bobPage, "articles");
    await until(async () => (await rowsOf(bobPage)).length === 1, "the shared record");
    expect((await rowsOf(bobPage)).map((data) => (JSON.parse(data) as { title: string }).title)).to.deep.equal(["for bob"]);
    await bobPage.click("#records tbody tr:first-child");
    await bobPage.waitForSelector("#record-view", { state: "visible" });
    expect(await bobPage.inputValue("#record-data")).to.contain("for bob");

    // Why and who: bob reads through the record's read naming him, may not write, and is no writer to see readers.
    await bobPage.waitForSelector("#explain-list li[data-permission=write]");
    expect(await bobPage.textContent("#explain-list li[data-permission=read] > strong")).to.equal("You may read");
    expect(await bobPage.textContent("#explain-list li[data-permission=read] li")).to.contain("read on /articles/");
    expect(await bobPage.textContent("#explain-list li[data-permission=read] li")).to.contain("(you)");
    expect(await bobPage.textContent("#explain-list li[data-permission=write] > strong")).to.equal("You may not write");
    await bobPage.waitForSelector("#readers-note:has-text('Only those who may write')");
    // Alice, its writer, sees both readers.
    await alicePage.waitForSelector("#readers-list li >> nth=1");
    const readers = await alicePage.$$eval("#readers-list li code", (codes) => codes.map((c) => c.getAttribute("title") ?? c.textContent));
    expect(readers).to.have.members([bob, await alicePage.textContent("#home-user-id")]);
    expect(await alicePage.textContent("#explain-list li[data-permission=write] > strong")).to.equal("You may write");
    await screenshot(alicePage, "6-why-and-who");
    await alicePage.context().close();
    await bobPage.context().close();
  });

  it("works when cors_origins does not list the server's own origin (same-origin is never refused)", async () => {
    const strict = await startTestServer({ cors_origins: "https://app.example.com" });
    try {
      const page = await newPage();
      await page.goto(`${strict.url}/v1/admin/`);
      await page.fill("#sign-in input[name=user]", "dave");
      await page.fill("#sign-in input[name=password]", "pw");
      await page.click("#sign-in button[type=submit]");
      await page.waitForSelector("#home-view", { state: "visible" });
      await page.click("#resources a[data-collection=notes]");
      await page.waitForSelector("#collection-view", { state: "visible" });
      // A write: the browser sends Origin (the server's own) with every POST.
      await page.click("#new-record");
      await page.fill("#record-data", JSON.stringify({ title: "same origin" }));
      await page.click("#record-form button[type=submit]");
      await page.waitForSelector("#message:has-text('Saved.')");
      const listed = await strict.request("GET", "/v1/notes", { user: "dave:pw" });
      expect(listed.body.data.map((r: { title: string }) => r.title)).to.deep.equal(["same origin"]);
      await page.context().close();
    } finally {
      await strict.stop();
    }
  });
});
