/**
 * The admin page manages groups: the groups one may read, a new one, members added and removed
 * by name, members through nested groups with the chain they belong through, and the API's
 * refusals (400 details, 403, 412) shown in the page. What the page did is checked through the
 * API itself; a member's name is text, never HTML. Debian's chromium through playwright-core,
 * as the admin page test.
 */
import { expect } from "chai";
import { type Browser, type BrowserContext, type Page } from "playwright-core";
import { launchChromium, requireBuiltAdminPage, requireChromium } from "../support/chromium.js";
import { startTestServer, type TestServer } from "../support/http.js";

/**
 * Accounts, so that a bare name typed means `account:<name>`; anyone may create one. The scrypt
 * cost is lowered for speed (the hasher's own test runs the default).
 */
const SERVER_SETTINGS: Record<string, string> = {
  "multiauth.policies": "account",
  account_create_principals: "system.Everyone",
  account_scrypt_cost: "4",
};
/** `user:password` of the two accounts the tests sign in with. */
const ALICE = "alice:alice-long-secret";
const BOB = "bob:bob-long-secret";
/** A member whose name is markup: shown as these characters, never run or rendered. */
const MARKUP = `<img src=x onerror="document.body.dataset.injected='yes'">`;

describe("admin page: groups", function () {
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
    for (const credentials of [ALICE, BOB]) {
      const [id, password] = credentials.split(":");
      const created = await server.request("POST", "/v1/accounts", { body: { data: { id, password } } });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
    }
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
    const page = await context.newPage();
    page.on("console", (message) => {
      if (message.type() === "error" && !/status of 4\d\d/.test(message.text())) problems.push(message.text());
    });
    page.on("pageerror", (error) => problems.push(error.message));
    return page;
  }

  /** Signs in to the account `user:password` and opens the groups view. */
  async function groupsOf(credentials: string): Promise<Page> {
    const [user = "", password = ""] = credentials.split(":");
    const page = await newPage();
    await page.goto(`${server.url}/v1/admin/`);
    await page.fill("#sign-in input[name=user]", user);
    await page.fill("#sign-in input[name=password]", password);
    await page.click("#sign-in button[type=submit]");
    await page.waitForSelector("#home-view", { state: "visible" });
    await page.click("#to-groups");
    await page.waitForSelector("#groups-view", { state: "visible" });
    return page;
  }

  async function openGroup(page: Page, id: string): Promise<void> {
    await page.click(`#groups a[data-group="${id}"]`);
    await page.waitForSelector("#group-view", { state: "visible" });
    await until(async () => (await page.textContent("#group-principal")) === `group:${id}`, `group:${id} on screen`);
  }

  async function addMember(page: Page, typed: string): Promise<void> {
    await page.fill("#add-member input[name=member]", typed);
    await page.click("#add-member button[type=submit]");
  }

  /** The ids the groups view lists. */
  const listed = (page: Page) => page.$$eval("#groups a[data-group]", (links) => links.map((a) => a.dataset.group));
  /** The group's direct members as the page lists them (the full principal, whatever is shown). */
  const shownMembers = (page: Page) =>
    page.$$eval("#group-members > li[data-member]", (items) => items.map((item) => item.dataset.member ?? ""));

  /** The group's members as the API holds them, read by `reader`. */
  async function members(id: string, reader = ALICE): Promise<string[]> {
    const answer = await server.request("GET", `/v1/groups/${id}`, { user: reader });
    expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
    return answer.body.data.members as string[];
  }

  async function putGroup(id: string, owner: string, groupMembers: string[]): Promise<void> {
    const answer = await server.request("PUT", `/v1/groups/${id}`, { user: owner, body: { data: { members: groupMembers } } });
    expect(answer.status, JSON.stringify(answer.body)).to.be.oneOf([200, 201]);
  }

  /** Polls (bounded: 10 s) until `check` holds; page scripts cannot be evaluated from strings under the CSP. */
  async function until(check: () => Promise<boolean>, what: string): Promise<void> {
    for (let attempt = 0; attempt < 200; attempt++) {
      if (await check()) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`timed out waiting for ${what}`);
  }

  it("lists the groups you may read and creates one, by id or with the service's id; a bad or taken id is said", async () => {
    await putGroup("bobs", BOB, ["account:bob"]);
    const page = await groupsOf(ALICE);
    await page.waitForSelector("#groups li");
    expect(await listed(page)).to.deep.equal([]);

    await page.fill("#new-group input[name=id]", "team");
    await page.click("#new-group button[type=submit]");
    await until(async () => (await page.textContent("#group-principal")) === "group:team", "the new group");
    expect(await members("team")).to.deep.equal([]);
    expect(await page.isVisible("#group-empty")).to.equal(true);
    // Its permissions are a record's: the page's record editor opens it in the groups collection.
    await page.click("#group-record");
    await page.waitForSelector("#record-view", { state: "visible" });
    expect(await page.textContent("#record-title")).to.equal("groups / team");
    await page.waitForSelector("#permissions tbody tr");
    expect(await page.$$eval("#permissions tbody tr", (rows) => rows.map((row) => row.dataset.principal))).to.deep.equal(["account:alice"]);
    await page.click("#to-collection");
    await page.waitForSelector("#collection-view", { state: "visible" });
    await page.click("#to-home");
    await page.click("#to-groups");
    await page.waitForSelector("#groups-view", { state: "visible" });
    await openGroup(page, "team");

    await page.click("#to-groups-list");
    await page.waitForSelector("#groups-view", { state: "visible" });
    await page.click("#new-group button[type=submit]"); // no id: the service picks one
    await page.waitForSelector("#message:has-text('Created group:')");
    const picked = ((await page.textContent("#group-principal")) ?? "").replace(/^group:/, "");
    expect(picked).to.not.equal("");
    expect(await members(picked)).to.deep.equal([]);

    await page.click("#to-groups-list");
    await until(async () => (await listed(page)).length === 2, "both groups listed");
    expect(await listed(page)).to.have.members(["team", picked]); // never bob's

    await page.fill("#new-group input[name=id]", "team");
    await page.click("#new-group button[type=submit]");
    await page.waitForSelector("#groups-errors li");
    expect(await page.textContent("#groups-errors")).to.contain("exists already");
    expect(await page.isVisible("#groups-view")).to.equal(true);

    const invalid = await server.request("PUT", "/v1/groups/not%20an%20id", { user: ALICE, body: { data: { members: [] } } });
    expect(invalid.status).to.equal(400);
    await page.fill("#new-group input[name=id]", "not an id");
    await page.click("#new-group button[type=submit]");
    // The list is emptied on submit before the answer arrives: wait for the new answer itself.
    await until(async () => ((await page.textContent("#groups-errors li")) ?? "").startsWith("400:"), "the 400");
    const errors = await page.$$eval("#groups-errors li", (items) => items.map((i) => i.textContent ?? ""));
    expect(errors[0]).to.equal(`400: ${invalid.body.message}`);
    expect(errors.slice(1)).to.deep.equal(
      (invalid.body.details as { location?: string; name?: string; description?: string }[]).map(
        (d) => `${[d.location, d.name].filter(Boolean).join(" ")}: ${d.description ?? ""}`,
      ),
    );
    expect(errors.length).to.be.greaterThan(1);
  });

  it("adds members by name and removes them; a name made of markup is shown as text", async () => {
    await putGroup("crew", ALICE, []);
    const page = await groupsOf(ALICE);
    await page.waitForSelector("#groups a[data-group=crew]");
    await openGroup(page, "crew");

    await addMember(page, "bob"); // a bare name: the account
    await page.waitForSelector("#message:has-text('Added account:bob.')");
    expect(await members("crew")).to.deep.equal(["account:bob"]);
    await addMember(page, "group:helpers");
    await page.waitForSelector("#message:has-text('Added group:helpers.')");
    await addMember(page, MARKUP);
    await page.waitForSelector("#message:has-text('Added <img')");
    expect(await members("crew")).to.deep.equal(["account:bob", "group:helpers", MARKUP]);
    expect(await shownMembers(page)).to.deep.equal(["account:bob", "group:helpers", MARKUP]);
    expect(await page.$$eval("#group-members > li > code", (codes) => codes.map((c) => c.textContent))).to.deep.equal([
      "account:bob",
      "group:helpers",
      MARKUP,
    ]);
    expect(await page.$$eval("img", (images) => images.length)).to.equal(0);
    expect(await page.$eval("body", (body) => body.dataset.injected ?? "no")).to.equal("no");

    await addMember(page, "account:bob");
    await page.waitForSelector("#group-errors li:has-text('is a member already')");

    await page.getByRole("button", { name: "Remove account:bob", exact: true }).click();
    await page.waitForSelector("#message:has-text('Removed account:bob.')");
    expect(await members("crew")).to.deep.equal(["group:helpers", MARKUP]);
    expect(await shownMembers(page)).to.deep.equal(["group:helpers", MARKUP]);
  });

  it("shows who is in a group through nested groups, with the chain; a group you may not read says so", async () => {
    // A group's id may not be named anywhere before it exists: outer first, inner names it, then outer names inner.
    await putGroup("secret", BOB, ["account:dave"]);
    await putGroup("outer", ALICE, ["account:bob"]);
    await putGroup("inner", ALICE, ["account:carol", "group:secret", "group:outer"]);
    await putGroup("outer", ALICE, ["account:bob", "group:inner"]);
    const page = await groupsOf(ALICE);
    await page.waitForSelector("#groups a[data-group=outer]");
    await openGroup(page, "outer");
    expect(await shownMembers(page)).to.deep.equal(["account:bob", "group:inner"]);
    // Only a group can be opened.
    expect(await page.$$eval("#group-members > li[data-member='account:bob'] > button.expand", (b) => b.length)).to.equal(0);

    const inner = "#group-members > li[data-member='group:inner']";
    expect(await page.textContent(`${inner} > .chain`)).to.equal(" group:inner ← group:outer");
    await page.click(`${inner} > button.expand`);
    await page.waitForSelector(`${inner} > ul > li[data-member]`);
    const nested = await page.$$eval(`${inner} > ul > li[data-member]`, (items) =>
      items.map((item) => [item.dataset.member, item.querySelector(":scope > .chain")?.textContent]),
    );
    expect(nested).to.deep.equal([
      ["account:carol", " account:carol ← group:inner ← group:outer"],
      ["group:secret", " group:secret ← group:inner ← group:outer"],
      ["group:outer", " group:outer ← group:inner ← group:outer"],
    ]);
    // Nested members are changed in their own group: no Remove there.
    expect(await page.$$eval(`${inner} > ul button.remove`, (b) => b.length)).to.equal(0);
    // group:outer inside inner is the group on screen: a cycle, not opened again.
    const cycle = `${inner} > ul > li[data-member='group:outer']`;
    expect(await page.$$eval(`${cycle} > button.expand`, (b) => b.length)).to.equal(0);
    expect(await page.textContent(cycle)).to.contain("a cycle");

    const secret = `${inner} > ul > li[data-member='group:secret']`;
    await page.click(`${secret} > button.expand`);
    await page.waitForSelector(`${secret} > ul > li.denied`);
    expect(await page.textContent(`${secret} > ul > li.denied`)).to.match(/^not readable \((403|404): /);
    expect(await page.textContent(secret)).to.not.contain("account:dave");

    await page.click(`${inner} > button.expand`); // hides again
    expect(await page.$$eval(`${inner} > ul > li`, (items) => items.length)).to.equal(0);
  });

  it("a member added while someone else changed the group: 412 said, the group read again, nothing overwritten", async () => {
    await putGroup("busy", ALICE, ["account:bob"]);
    const page = await groupsOf(ALICE);
    await page.waitForSelector("#groups a[data-group=busy]");
    await openGroup(page, "busy");

    const meanwhile = await server.request("PATCH", "/v1/groups/busy", {
      user: ALICE,
      body: { data: { members: ["account:bob", "account:erin"] } },
    });
    expect(meanwhile.status).to.equal(200);
    await addMember(page, "account:frank");
    await page.waitForSelector("#group-errors li:has-text('changed meanwhile')");
    expect(await members("busy")).to.deep.equal(["account:bob", "account:erin"]);
    expect(await shownMembers(page)).to.deep.equal(["account:bob", "account:erin"]);

    await addMember(page, "account:frank");
    await page.waitForSelector("#message:has-text('Added account:frank.')");
    expect(await members("busy")).to.deep.equal(["account:bob", "account:erin", "account:frank"]);
  });

  it("a reader who may not write sees the group and the 403 of a change", async () => {
    await putGroup("readonly", ALICE, ["account:carol"]);
    const shared = await server.request("PATCH", "/v1/groups/readonly", {
      user: ALICE,
      body: { permissions: { read: ["account:bob"] } },
    });
    expect(shared.status).to.equal(200);
    const page = await groupsOf(BOB);
    await page.waitForSelector("#groups a[data-group=readonly]");
    await openGroup(page, "readonly");
    expect(await shownMembers(page)).to.deep.equal(["account:carol"]);

    await addMember(page, "account:mallory");
    await page.waitForSelector("#group-errors li");
    expect(await page.textContent("#group-errors li")).to.match(/^Not allowed \(403\): /);
    expect(await members("readonly")).to.deep.equal(["account:carol"]);
  });

  it("offers no groups where the service keeps no permissions (no group resource)", async () => {
    const bare = await startTestServer({ resources: "notes:user", permission_backend: undefined });
    try {
      expect((await bare.request("GET", "/v1/groups", { user: "erin:pw" })).status).to.equal(404);
      const page = await newPage();
      await page.goto(`${bare.url}/v1/admin/`);
      await page.fill("#sign-in input[name=user]", "erin");
      await page.fill("#sign-in input[name=password]", "pw");
      await page.click("#sign-in button[type=submit]");
      await page.waitForSelector("#home-view", { state: "visible" });
      expect(await page.isVisible("#to-groups")).to.equal(false);
    } finally {
      await bare.stop();
    }
  });
});
