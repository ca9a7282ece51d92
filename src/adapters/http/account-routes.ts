/**
 * `/accounts` and `/accounts/{id}`, as Kinto's accounts plugin answers them: `{"data": {"id",
 * "last_modified"}, "permissions": {"write": ["account:<id>"]}}`. The password is accepted in
 * `data.password` and never written into any response. Registered before the record routes, so
 * that `accounts` is never read as a collection name.
 */
import type Router from "@koa/router";
import type { Context } from "koa";
import { MethodNotAllowedError, ValidationError } from "../../domain/errors.js";
import { isJsonObject, type JsonObject } from "../../domain/json.js";
import { AccountService, type AccountView } from "../../application/accounts/account-service.js";
import { accountUserId } from "../../application/accounts/account-rules.js";
import type { HttpServices } from "./http-services.js";
import { requesterOf } from "./record-routes.js";
import { TrustedProxies } from "./client-address.js";
import { requestCredentials } from "./request-credentials.js";
import { setTimestampHeaders } from "./responses.js";

const PLURAL_METHODS = ["GET", "HEAD", "POST"];
const SINGLE_METHODS = ["GET", "HEAD", "PUT", "PATCH", "DELETE"];
const READ_METHODS = new Set(["GET", "HEAD"]);

/** `data` of the body, else a 400 as Kinto words it. */
function dataOf(ctx: Context): JsonObject {
  const body: unknown = ctx.request.body;
  const data = isJsonObject(body) ? body.data : undefined;
  if (!isJsonObject(data)) throw ValidationError.single("body", "data", "data in body: Required");
  return data;
}

function accountBody(account: AccountView): JsonObject {
  return { data: { id: account.id, last_modified: account.lastModified }, permissions: { write: [accountUserId(account.id)] } };
}

export function registerAccountRoutes(router: Router, services: HttpServices): void {
  const accounts = services.accounts;
  if (!accounts) return;
  const allowed = (methods: readonly string[]) => methods.filter((m) => !services.options.readonly || READ_METHODS.has(m));
  const password = (ctx: Context) => () => AccountService.checkPassword(dataOf(ctx).password);
  // Whose hash a new password is: it takes that client's turn (computed here, not on every request).
  const proxies = new TrustedProxies(services.options.trustedProxies ?? []);
  const client = (ctx: Context) => requestCredentials(ctx, proxies);
  const respond = (ctx: Context, status: number, account: AccountView) => {
    setTimestampHeaders(ctx, account.lastModified);
    ctx.status = status;
    ctx.body = accountBody(account);
  };

  router.all("/accounts", async (ctx) => {
    const methods = allowed(PLURAL_METHODS);
    if (!methods.includes(ctx.method)) throw new MethodNotAllowedError(methods);
    const caller = await requesterOf(ctx).caller();
    if (ctx.method === "POST") {
      const id = AccountService.checkId(dataOf(ctx).id, "body", "data.id");
      const result = await accounts.post(caller, id, password(ctx), client(ctx));
      respond(ctx, result.created ? 201 : 200, result.account);
      return;
    }
    const list = await accounts.list(caller, services.options.storageMaxFetchSize);
    const newest = list.reduce((max, a) => Math.max(max, a.lastModified), 0);
    setTimestampHeaders(ctx, newest);
    ctx.body = { data: list.map((a) => ({ id: a.id, last_modified: a.lastModified })) };
  });

  router.all("/accounts/:id", async (ctx) => {
    const methods = allowed(SINGLE_METHODS);
    if (!methods.includes(ctx.method)) throw new MethodNotAllowedError(methods);
    const id = AccountService.checkId((ctx.params as Record<string, string | undefined>).id, "path", "id");
    const caller = await requesterOf(ctx).caller();
    const passwordInBody = () => {
      const data = dataOf(ctx);
      if (data.id !== undefined && data.id !== id)
        throw ValidationError.single("body", "data.id", "data.id in body: does not match the id in the URL");
      return AccountService.checkPassword(data.password);
    };
    switch (ctx.method) {
      case "PUT": {
        const result = await accounts.put(caller, id, passwordInBody, client(ctx));
        respond(ctx, result.created ? 201 : 200, result.account);
        return;
      }
      case "PATCH":
        respond(ctx, 200, await accounts.changePassword(caller, id, passwordInBody, client(ctx)));
        return;
      case "DELETE": {
        const deleted = await accounts.delete(caller, id);
        setTimestampHeaders(ctx, deleted.lastModified);
        ctx.body = { data: { id: deleted.id, last_modified: deleted.lastModified, deleted: true } };
        return;
      }
      default:
        respond(ctx, 200, await accounts.get(caller, id));
    }
  });
}
