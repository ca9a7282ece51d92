/**
 * What the authentication policies see of a Koa request: its headers and, computed on first use,
 * the client's address. A batch's sub-requests have no socket of their own: they get the address
 * of the connection that sent the batch, so per-address bounds (sign-in throttling) hold in a batch.
 */
import type { Context } from "koa";
import type { RequestCredentials } from "../../application/ports/authentication-policy.js";
import { addressKey, clientAddress, type TrustedProxies } from "./client-address.js";
import { currentRequest, type RequestContext } from "./request-context.js";

function outermost(context: RequestContext | undefined): RequestContext | undefined {
  let current = context;
  while (current?.parent) current = current.parent;
  return current;
}

export function requestCredentials(ctx: Context, proxies: TrustedProxies): RequestCredentials {
  const request = currentRequest();
  const root = outermost(request);
  let address: string | undefined;
  // The address key (an IPv6 client counts per /64), as the other per-address bounds count.
  const own = () => (address ??= addressKey(clientAddress(ctx.req.socket.remoteAddress, ctx.get("x-forwarded-for") || undefined, proxies)));
  // Kept on the request's own context, not in a WeakMap: an ephemeron per request made W1 pay ~15 % in GC.
  const find = root !== undefined && root !== request ? (root.clientAddress ?? (() => "")) : own;
  if (root !== undefined && root === request) root.clientAddress = own;
  return {
    header: (name) => ctx.get(name) || undefined,
    get clientAddress() {
      return find();
    },
  };
}
