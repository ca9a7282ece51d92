/**
 * The admin page's identity pieces that need no browser, run in Node from the built browser
 * modules (the page's own code, not a copy): PKCE against RFC 7636's worked example, the feed's
 * event parser against the HTML standard's rules, readable principals, and the page's CSP
 * allowing the listed OpenID Connect providers and nothing else.
 */
import type { AddressInfo } from "node:net";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { expect } from "chai";
import Koa from "koa";
import { adminCsp, adminPages } from "../../src/adapters/http/admin-pages.js";
import type { JsonObject } from "../../src/domain/json.js";
import { BUILT_ADMIN_PAGE, requireBuiltAdminPage } from "../support/chromium.js";

const BUILT = BUILT_ADMIN_PAGE;

interface FeedEvent {
  id: string | undefined;
  event: string;
  data: string;
}
interface Modules {
  pkce: { randomToken: () => string; s256Challenge: (verifier: string) => Promise<string> };
  feed: { EventParser: new (dispatch: (event: FeedEvent) => void) => { push(text: string): void; lastEventId: string | undefined } };
  principals: {
    readablePrincipal: (principal: string, you?: string) => { text: string; title: string | undefined };
    principalFromInput: (typed: string, accounts: boolean) => string;
  };
}

async function load<K extends keyof Modules>(name: K): Promise<Modules[K]> {
  return (await import(pathToFileURL(path.join(BUILT, `${name}.js`)).href)) as Modules[K];
}

describe("admin page identity modules", () => {
  before(function () {
    requireBuiltAdminPage(this, "pkce.js");
  });

  it("computes the S256 code challenge of RFC 7636's appendix B and draws 43-character verifiers", async () => {
    const { randomToken, s256Challenge } = await load("pkce");
    expect(await s256Challenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")).to.equal("E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM");
    const drawn = new Set(Array.from({ length: 50 }, () => randomToken()));
    expect(drawn.size).to.equal(50);
    for (const token of drawn) expect(token).to.match(/^[A-Za-z0-9_-]{43}$/); // RFC 7636 §4.1: unreserved, 43..128
  });

  it("parses Server-Sent Events as the standard says, whatever the chunking", async () => {
    const { EventParser } = await load("feed");
    const stream =
      ': connected\r\n\r\nid: 5\nevent: create\ndata: {"id":"a"}\n\n: keep-alive\n\n' +
      "id: 6\revent: delete\rdata: line one\rdata:line two\r\r" +
      "data: no type\n\nid: 9\n\nevent: resync\ndata: {}\n\n";
    const expected = [
      { id: "5", event: "create", data: '{"id":"a"}' },
      { id: "6", event: "delete", data: "line one\nline two" },
      { id: "6", event: "message", data: "no type" },
      { id: "9", event: "resync", data: "{}" }, // an id alone dispatches nothing but moves the resume point
    ];
    for (const size of [1, 2, 3, 7, stream.length]) {
      const events: FeedEvent[] = [];
      const parser = new EventParser((event) => events.push(event));
      for (let at = 0; at < stream.length; at += size) parser.push(stream.slice(at, at + size));
      expect(events, `chunks of ${size}`).to.deep.equal(expected);
      expect(parser.lastEventId).to.equal("9");
    }
  });

  it("shows principals readably: names as they are, Basic Auth hashes cut short with the full id in the title", async () => {
    const { readablePrincipal, principalFromInput } = await load("principals");
    const hash = `basicauth:${"0123456789abcdef".repeat(4)}`;
    expect(readablePrincipal(hash)).to.deep.equal({ text: "basicauth:01234567…", title: hash });
    expect(readablePrincipal("account:bob")).to.deep.equal({ text: "account:bob", title: undefined });
    expect(readablePrincipal("account:bob", "account:bob").text).to.equal("account:bob (you)");
    expect(readablePrincipal("group:team").text).to.equal("group:team");
    expect(readablePrincipal("system.Authenticated").title).to.contain("signed-in");
    expect(readablePrincipal("google:1234").text).to.equal("google:1234");
    expect(principalFromInput(" bob ", true)).to.equal("account:bob");
    expect(principalFromInput("bob", false)).to.equal("bob");
    for (const kept of ["account:bob", "group:x", "system.Everyone", hash]) expect(principalFromInput(kept, true)).to.equal(kept);
  });

  it("lets the page connect to the service and to the listed providers' origins only", async () => {
    const self =
      "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
    expect(adminCsp({})).to.equal(self);
    expect(adminCsp({ basicauth: { description: "x", url: "https://docs.example.com/" } })).to.equal(self);
    const capabilities: JsonObject = {
      openid: {
        providers: [
          {
            name: "corp",
            issuer: "https://id.example.com/realms/corp",
            client_id: "admin",
            userinfo_endpoint: "https://api.example.com/u",
          },
          { name: "dev", issuer: "http://127.0.0.1:4000", client_id: "https://not-a-place", header_type: "Bearer" },
        ],
      },
    };
    const expected = self.replace(
      "connect-src 'self'",
      "connect-src 'self' http://127.0.0.1:4000 https://api.example.com https://id.example.com https://not-a-place",
    );
    expect(adminCsp(capabilities)).to.equal(expected);
    // As served: the header of the page and of its scripts.
    const app = new Koa().use(adminPages({ capabilities, directory: BUILT }));
    const server = app.listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/admin/`;
      for (const url of [base, `${base}main.js`]) expect((await fetch(url)).headers.get("content-security-policy"), url).to.equal(expected);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("never lets a provider's URL add to the CSP anything but an origin", () => {
    const hostile = [
      "https://x.example;script-src-elem", // would end connect-src and start another directive
      "https://x.example,*",
      "http://x.example\nscript-src *",
      "javascript:alert(1)",
      "https://user:pw@id.example:8443/a?b#c",
      "https://[::1]:4000/",
      "https://ÉXAMPLE.com/",
      "x".repeat(100_000),
    ];
    const capabilities: JsonObject = { openid: { providers: hostile.map((issuer, i) => ({ name: `p${i}`, issuer, client_id: "c" })) } };
    const connect = /connect-src ([^;]*);/.exec(adminCsp(capabilities))?.[1];
    expect(connect).to.equal("'self' https://[::1]:4000 https://id.example:8443 https://xn--xample-9ua.com");
    expect(
      adminCsp(capabilities)
        .split(";")
        .map((d) => d.trim().split(" ")[0]),
    ).to.deep.equal(["default-src", "script-src", "style-src", "connect-src", "img-src", "base-uri", "form-action", "frame-ancestors"]);
  });
});
