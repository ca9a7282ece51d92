/**
 * What the authentication policies see of a Koa request: its headers and, computed on first use,
 * the client's address. A batch's sub-requests have no socket of their own: they get the address
 * of the connection that sent the batch, so per-address bounds (sign-in throttling) hold in a batch.
 */
import type { Context } from "koa";
import type { RequestCredentials } from "../../application/ports/authentication-policy.js";
import { addressKey, clientAddress, type TrustedProxies } from "./client-address.js";
import { currentRequest, type ClientAddressSource, type RequestContext } from "./request-context.js";

/** The peer and `X-Forwarded-For` as read when the request arrived: nothing of the request itself is kept. */
class ClientAddressOf implements ClientAddressSource {
  private key: string | undefined;

  constructor(
    private readonly peer: string | undefined,
    private readonly forwardedFor: string | undefined,
    private readonly proxies: TrustedProxies,
  ) {}

  /** The address key (an IPv6 client counts per /64), as the other per-address bounds count. */
  get address(): string {
    return (this.key ??= addressKey(clientAddress(this.peer, this.forwardedFor, this.proxies)));
  }
}

const NO_CLIENT: ClientAddressSource = { address: "" };

/**
 * A class, not an object literal with `get clientAddress()`: with the literal, most of each
 * request's objects (request, response, headers, logger) lived into V8's old generation.
 */
class KoaRequestCredentials implements RequestCredentials {
  constructor(
    private readonly ctx: Context,
    private readonly client: ClientAddressSource,
  ) {}

  header(name: string): string | undefined {
    return this.ctx.get(name) || undefined;
  }

  get clientAddress(): string {
    return this.client.address;
  }

  /** Aborts when the connection closes before the answer was sent. A batch's sub-request has no connection of its own: none. */
  clientGone(): AbortSignal | undefined {
    const { res } = this.ctx;
    if (!res.socket) return undefined;
    const controller = new AbortController();
    if (res.destroyed) controller.abort();
    else res.once("close", () => (res.writableFinished ? undefined : controller.abort()));
    return controller.signal;
  }
}

function outermost(context: RequestContext | undefined): RequestContext | undefined {
  let current = context;
  while (current?.parent) current = current.parent;
  return current;
}

export function requestCredentials(ctx: Context, proxies: TrustedProxies): RequestCredentials {
  const request = currentRequest();
  const root = outermost(request);
  if (root !== undefined && root !== request) return new KoaRequestCredentials(ctx, root.client ?? NO_CLIENT);
  const client = new ClientAddressOf(ctx.req.socket.remoteAddress, ctx.get("x-forwarded-for") || undefined, proxies);
  // Kept on the request's own context, not in a WeakMap: an ephemeron per request made W1 pay ~15 % in GC.
  if (root !== undefined) root.client = client;
  return new KoaRequestCredentials(ctx, client);
}
