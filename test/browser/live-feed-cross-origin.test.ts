/**
 * The live feed read by a browser app served from another origin (another port), with
 * authentication: the fetch-based reader of docs/api.md, taken from that document itself, and, now that
 * listed origins are allowed credentials, `EventSource` with `withCredentials` and `fetch` with
 * `credentials: "include"`. Debian's chromium driven by playwright-core, as the admin page test.
 */
import { existsSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { expect } from "chai";
import { chromium, type Browser, type Page } from "playwright-core";
import { PROJECT_ROOT } from "../support/tessera-process.js";
import { startTestServer, type TestServer } from "../support/http.js";

const CHROMIUM = process.env.TESSERA_CHROMIUM ?? "/usr/bin/chromium";
const ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-sync"];
const BOB = "bob:secret";

/** The example reader of docs/api.md (the function only; not its usage line). */
function documentedReader(): string {
  const api = readFileSync(path.join(PROJECT_ROOT, "docs", "api.md"), "utf8");
  const heading = /^#+ Live feed from a browser$/m.exec(api);
  if (!heading) throw new Error("no 'Live feed from a browser' section in docs/api.md");
  const section = api.slice(heading.index);
  const code = /```js\n([\s\S]*?)```/.exec(section)?.[1];
  if (!code) throw new Error("no js example in the 'Live feed from a browser' section of docs/api.md");
  return code
    .split("\n")
    .filter((line) => !line.startsWith("followFeed("))
    .join("\n");
}

/** Polls (bounded: 10 s) the page until `expression` is true. */
async function until(page: Page, expression: string, what: string): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt++) {
    if (await page.evaluate(expression)) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${what}: ${JSON.stringify(await page.evaluate("window.log"))}`);
}

describe("live feed from a browser on another origin", function () {
  this.timeout(60_000);
  let browser: Browser;
  let app: Server;
  let appOrigin: string;
  let server: TestServer;

  before(async function () {
    if (!existsSync(CHROMIUM)) {
      if (process.env.CI) throw new Error(`no browser at ${CHROMIUM}: CI needs Debian's chromium (apt-get install -y chromium)`);
      console.log(`    (skipped: no browser at ${CHROMIUM}; apt-get install -y chromium, or set TESSERA_CHROMIUM)`);
      this.skip();
    }
    // The app's own server: another port, so another origin than the service's.
    app = createServer((_req, res) => res.writeHead(200, { "Content-Type": "text/html" }).end("<!doctype html><title>app</title>"));
    await new Promise<void>((resolve) => app.listen(0, "127.0.0.1", resolve));
    appOrigin = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
    server = await startTestServer({ cors_origins: appOrigin, articles_read_principals: "system.Everyone" });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
    await new Promise((resolve) => app?.close(resolve));
  });

  async function appPage(): Promise<Page> {
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${appOrigin}/`);
    await page.evaluate("window.log = []");
    return page;
  }

  it("runs the documented fetch reader (docs/api.md) with Authorization: replay, then live changes", async () => {
    await server.request("PUT", "/v1/notes/before", { user: BOB, body: { data: { n: 1 } } });
    const page = await appPage();
    await page.addScriptTag({ content: documentedReader() });
    const url = `${server.url}/v1/notes?_since=0`;
    await page.evaluate(
      `followFeed(${JSON.stringify(url)}, "Basic " + btoa(${JSON.stringify(BOB)}), (e) => window.log.push(e)).catch((error) => window.log.push({ error: String(error) })); null`, // not awaited: the stream never ends
    );
    await until(page, "window.log.length >= 1", "the replayed note");
    await server.request("PUT", "/v1/notes/after", { user: BOB, body: { data: { n: 2 } } });
    await until(page, "window.log.length >= 2", "the live note");
    type Event = { id: string; event: string; data: { id: string; n: number; last_modified: number } };
    const log = await page.evaluate<Event[]>("window.log");
    expect(log.map((e) => [e.event, e.data.id, e.data.n])).to.deep.equal([
      ["create", "before", 1],
      ["create", "after", 2],
    ]);
    for (const e of log) expect(e.id).to.equal(String(e.data.last_modified));
    await page.context().close();
  });

  it("lets an explicitly listed origin use credentials: fetch with credentials: include, EventSource withCredentials", async () => {
    await server.request("PUT", "/v1/articles/public", { user: BOB, body: { data: { title: "hello" } } });
    const page = await appPage();
    const notes = JSON.stringify(`${server.url}/v1/notes`);
    await page.evaluate(
      `fetch(${notes}, { credentials: "include", headers: { Authorization: "Basic " + btoa(${JSON.stringify(BOB)}) } })
        .then((r) => r.json()).then((body) => window.log.push({ fetched: body.data.length }), (error) => window.log.push({ error: String(error) })); null`,
    );
    const articles = JSON.stringify(`${server.url}/v1/articles?_since=0`);
    await page.evaluate(
      `const source = new EventSource(${articles}, { withCredentials: true });
       source.addEventListener("create", (e) => { window.log.push({ event: "create", data: JSON.parse(e.data) }); source.close(); });
       source.onerror = () => { window.log.push({ error: "EventSource failed" }); source.close(); }; null`,
    );
    await until(page, "window.log.length >= 2", "both requests");
    const log = await page.evaluate<unknown[]>("window.log");
    const bobsNotes = (await server.request("GET", "/v1/notes", { user: BOB })).body.data.length as number;
    expect(log).to.have.deep.members([
      { fetched: bobsNotes },
      { event: "create", data: (await server.request("GET", "/v1/articles/public")).body.data },
    ]);
    await page.context().close();
  });
});
