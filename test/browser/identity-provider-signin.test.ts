/**
 * The admin page signs Bob in through an OpenID Connect provider for real (issue 27): a real
 * `oidc-provider` with its own sign-in and consent pages, a public client with PKCE whose redirect
 * URI is the admin page, CORS on its endpoints for the page's origin only. Bob clicks the
 * provider's button, signs in on the provider's page, comes back as `<policy>:<sub>`, sees the
 * article Alice shares with him appear live and leave when she unshares. The bearer token may sit
 * in sessionStorage (the page's documented choice); nothing ever reaches localStorage, and the
 * provider password never reaches either. Debian's chromium through playwright-core.
 */
import { expect } from "chai";
import { type Browser, type BrowserContext, type Page } from "playwright-core";
import { recordStorageWrites, type PageGlobals, type WebStorage } from "../support/storage-writes.js";
import { launchChromium, requireBuiltAdminPage, requireChromium } from "../support/chromium.js";
import { listenLoginProvider, type LoginProvider } from "../support/openid-login-provider.js";
import { basic, startIniServer, type IniServer } from "../support/openid-server.js";

const ALICE = basic("alice:alice's long password");
const BOB_PROVIDER_PASSWORD = "bob's password at the provider";

describe("admin page: signing in through an OpenID Connect provider", function () {
  this.timeout(60_000);
  let browser: Browser;
  let provider: LoginProvider;
  let server: IniServer;
  const problems: string[] = [];
  const contexts: BrowserContext[] = [];

  before(async function () {
    requireBuiltAdminPage(this);
    requireChromium(this);
    provider = await listenLoginProvider();
    server = await startIniServer(
      [
        "userid_hmac_secret = s3cret",
        "listen_port = 0",
        "resources = articles:shareable",
        "permission_backend = memory",
        "articles_create_principals = system.Authenticated",
        "multiauth.policies = account acme",
        "account_create_principals = system.Everyone",
        "account_scrypt_cost = 4",
        "multiauth.policy.acme.use = openid",
        `multiauth.policy.acme.issuer = ${provider.issuer}`,
        "multiauth.policy.acme.client_id = tessera-admin",
        "multiauth.policy.acme.groups_claim = groups",
      ].join("\n"),
    );
    await provider.open({ clientId: "tessera-admin", redirectUri: `${server.url}/v1/admin/`, groups: { bob: ["sales"] } });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
    await provider?.stop();
  });
  afterEach(async () => {
    for (const context of contexts.splice(0)) await context.close();
    expect(problems.splice(0)).to.deep.equal([]); // CSP violations and script errors show up in the console
  });

  async function newPage(): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1000, height: 720 } });
    contexts.push(context);
    await context.addInitScript(recordStorageWrites);
    // The provider's development pages import a web font; the test stays offline and its console clean.
    await context.route("https://fonts.googleapis.com/**", (route) => route.fulfill({ status: 200, contentType: "text/css", body: "" }));
    const page = await context.newPage();
    page.on("console", (message) => {
      if (message.type() === "error" && !/status of 4\d\d/.test(message.text())) problems.push(message.text());
    });
    page.on("pageerror", (error) => problems.push(error.message));
    return page;
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

  /** The admin page's button for the provider, the provider's sign-in and consent pages, and back. */
  async function signInAtProvider(page: Page, login: string, password: string): Promise<void> {
    await page.goto(`${server.url}/v1/admin/`);
    await page.click("#provider-list button[data-provider=acme]");
    await page.waitForURL((url) => url.origin === provider.issuer);
    await page.fill("input[name=login]", login);
    await page.fill("input[name=password]", password);
    await page.click("button[type=submit]");
    await page.waitForSelector("button:has-text('Continue')"); // the consent page
    await page.click("button:has-text('Continue')");
    await page.waitForURL((url) => url.origin === server.url);
    await page.waitForSelector("#home-view", { state: "visible" });
  }

  it("Bob signs in at the provider, is acme:bob, and sees Alice's article come and go live", async () => {
    expect(
      (await server.request("POST", "/v1/accounts", { body: { data: { id: "alice", password: "alice's long password" } } })).status,
    ).to.equal(201);
    const page = await newPage();
    const earlier = provider.requests.length;
    await signInAtProvider(page, "bob", BOB_PROVIDER_PASSWORD);
    expect(await page.textContent("#user-id")).to.equal("acme:bob");
    expect(new URL(page.url()).search).to.equal(""); // the single-use code left the address bar
    // The code was exchanged by the page itself, a cross-origin request the provider allowed.
    expect(
      provider.requests
        .slice(earlier)
        .filter((r) => r.path === "/token")
        .map((r) => r.origin),
    ).to.deep.equal([server.url]);

    await page.click("#resources a[data-collection=articles]");
    await page.waitForSelector("#live-state:text-is('· live')");
    expect(await titlesOf(page)).to.deep.equal([]);
    const shared = await server.request("PUT", "/v1/articles/for-bob", {
      auth: ALICE,
      body: { data: { title: "for bob" }, permissions: { read: ["acme:bob"] } },
    });
    expect(shared.status).to.equal(201);
    await until(async () => (await titlesOf(page)).includes("for bob"), "the shared article on Bob's page");
    const unshared = await server.request("PATCH", "/v1/articles/for-bob", { auth: ALICE, body: { permissions: { read: [] } } });
    expect(unshared.status).to.equal(200);
    await until(async () => (await titlesOf(page)).length === 0, "the unshared article leaving Bob's page");
    // Through a group of Bob's at the provider (`groups_claim`): the same, by group.
    const forSales = await server.request("PUT", "/v1/articles/for-sales", {
      auth: ALICE,
      body: { data: { title: "for sales" }, permissions: { read: ["group:sales"] } },
    });
    expect(forSales.status).to.equal(201);
    await until(async () => (await titlesOf(page)).includes("for sales"), "the article shared with Bob's group");
    expect((await server.request("PATCH", "/v1/articles/for-sales", { auth: ALICE, body: { permissions: { read: [] } } })).status).to.equal(
      200,
    );
    await until(async () => (await titlesOf(page)).length === 0, "the article unshared from Bob's group");
    console.log(
      provider.requests
        .filter((r) => r.path !== "/token")
        .map((r) => r.path)
        .join(" "),
    );

    // Storage: the bearer token in this tab's sessionStorage only; nothing in localStorage; no password anywhere.
    const storage = await page.evaluate(() => {
      const g = globalThis as unknown as PageGlobals;
      const dump = (s: WebStorage) => Array.from({ length: s.length }, (_, i) => `${s.key(i)}=${s.getItem(s.key(i) ?? "")}`);
      return { writes: g.storageWrites, local: dump(g.localStorage), session: dump(g.sessionStorage) };
    });
    expect(storage.local).to.deep.equal([]);
    expect(storage.writes.filter(([where]) => where === "local")).to.deep.equal([]);
    const kept = storage.session.find((entry) => entry.startsWith("tessera.admin.token="));
    expect(kept, JSON.stringify(storage.session)).to.match(/"authorization":"Bearer [^"]+"/);
    for (const [, , value] of storage.writes) expect(value).to.not.contain(BOB_PROVIDER_PASSWORD);

    // A reload keeps the session (the token in sessionStorage); signing out forgets the token.
    await page.reload();
    await page.waitForSelector("#home-view", { state: "visible" });
    expect(await page.textContent("#user-id")).to.equal("acme:bob");
    await page.click("#sign-out");
    await page.waitForSelector("#sign-in-view", { state: "visible" });
    expect(await page.evaluate(() => (globalThis as unknown as PageGlobals).sessionStorage.length)).to.equal(0);
    // The provider issued an opaque access token: the service asked its userinfo endpoint once, then used its cache.
    expect(provider.requests.slice(earlier).filter((r) => r.path === "/me")).to.deep.equal([{ path: "/me", origin: undefined }]);
  });
  it("stays signed out when Bob cancels at the provider, and refuses a replayed callback", async () => {
    const page = await newPage();
    await page.goto(`${server.url}/v1/admin/`);
    await page.click("#provider-list button[data-provider=acme]");
    await page.waitForURL((url) => url.origin === provider.issuer);
    await page.click("a:has-text('Cancel')");
    await page.waitForSelector("#message:has-text('acme refused the sign-in')");
    expect(await page.isVisible("#sign-in-view")).to.equal(true);
    expect(new URL(page.url()).search).to.equal("");

    // A callback with a code, seen once: opened again (history, a leaked link), it signs nobody in.
    const callbacks: string[] = [];
    page.on("request", (request) => {
      if (request.isNavigationRequest() && request.url().startsWith(`${server.url}/v1/admin/?`)) callbacks.push(request.url());
    });
    await signInAtProvider(page, "carol", "carol's password at the provider");
    expect(await page.textContent("#user-id")).to.equal("acme:carol");
    await page.click("#sign-out");
    await page.waitForSelector("#sign-in-view", { state: "visible" });
    const exchanges = provider.requests.filter((r) => r.path === "/token").length;
    expect(callbacks).to.have.length(1);
    expect(new URL(callbacks[0] as string).searchParams.has("code")).to.equal(true);
    await page.goto(callbacks[0] as string);
    await page.waitForSelector("#message:has-text('not started from this tab')");
    expect(await page.isVisible("#sign-in-view")).to.equal(true);
    expect(provider.requests.filter((r) => r.path === "/token").length).to.equal(exchanges); // the code was not even tried
  });
});
