/**
 * What the authentication policies see of a request: its headers, its client address, the
 * batch's address inside a batch; and nothing of the request kept on its context, which every
 * promise of the request reaches (holding the request there kept its objects alive: W1 lost 10 %).
 */
import { expect } from "chai";
import type { Context } from "koa";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { TrustedProxies } from "../../src/adapters/http/client-address.js";
import { requestCredentials } from "../../src/adapters/http/request-credentials.js";
import { runInRequest, type RequestContext } from "../../src/adapters/http/request-context.js";

setFlagsFromString("--expose-gc");
const collectGarbage = runInNewContext("gc") as () => void;

/** The parts of a Koa context the credentials read. */
function koaContext(peer: string, headers: Record<string, string>): Context {
  return {
    req: { socket: { remoteAddress: peer } },
    get: (name: string) => headers[name.toLowerCase()] ?? "",
  } as unknown as Context;
}

describe("request credentials", () => {
  const proxies = new TrustedProxies(["10.0.0.0/8"]);

  it("show the headers and the client address (after trusted proxies)", async () => {
    await runInRequest("r1", async () => {
      const credentials = requestCredentials(
        koaContext("10.1.2.3", { authorization: "Basic eDp5", "x-forwarded-for": "203.0.113.9" }),
        proxies,
      );
      expect(credentials.header("authorization")).to.equal("Basic eDp5");
      expect(credentials.header("x-missing")).to.equal(undefined);
      expect(credentials.clientAddress).to.equal("203.0.113.9");
    });
  });

  it("give a batch's sub-requests the address of the connection that sent the batch", async () => {
    await runInRequest("batch", async () => {
      requestCredentials(koaContext("198.51.100.4", {}), proxies);
      await runInRequest("sub", async () => {
        const sub = requestCredentials(koaContext("192.0.2.200", { authorization: "Basic c3ViOnB3" }), proxies);
        expect(sub.clientAddress).to.equal("198.51.100.4");
        expect(sub.header("authorization")).to.equal("Basic c3ViOnB3");
      });
    });
  });

  it("keep nothing of the request on its context", async () => {
    let context: RequestContext | undefined;
    let request: WeakRef<Context> | undefined;
    await runInRequest("r2", async (current) => {
      context = current;
      const ctx = koaContext("2001:db8:1:2:3:4:5:6", {});
      request = new WeakRef(ctx);
      requestCredentials(ctx, proxies);
    });
    await new Promise((resolve) => setImmediate(resolve));
    collectGarbage();
    collectGarbage();
    expect(request?.deref(), "the Koa context is collected while its request context lives").to.equal(undefined);
    // The address is still there for a late sub-request, as the /64 the other per-address bounds count.
    expect(context?.client?.address).to.equal("2001:db8:1:2::/64");
  });
});
