/**
 * A real OpenID Connect provider (`oidc-provider`) where people sign in through its own pages, for
 * the admin page's browser test: its development interactions (a login form taking any name, then
 * a consent form), one public client (no secret, PKCE required, as for a browser app) and CORS on
 * its endpoints for the client's redirect origin only. The server listens first, so that its
 * issuer can go into the service's settings before the client's redirect URI (the service's own
 * address) is known; `open` then starts the provider.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { quietly, signingKey } from "./openid-provider.js";

const { default: Provider } = await quietly(() => import("oidc-provider"));

export interface LoginClient {
  readonly clientId: string;
  /** Where the provider sends the browser back with the code (the admin page). */
  readonly redirectUri: string;
  /** Groups per login name, put in the `groups` claim. */
  readonly groups?: Readonly<Record<string, readonly string[]>>;
}

export interface LoginProvider {
  readonly issuer: string;
  /** Paths requested, in order, with the request's Origin header when it had one. */
  readonly requests: { path: string; origin: string | undefined }[];
  open(client: LoginClient): Promise<void>;
  stop(): Promise<void>;
}

export async function listenLoginProvider(): Promise<LoginProvider> {
  const requests: { path: string; origin: string | undefined }[] = [];
  let handler: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  // Requests that come before `open` (a server started first, fetching the discovery document at
  // once) wait for it: answered 503, they left that server's keys failed for its cool-down.
  const waiting: [IncomingMessage, ServerResponse][] = [];
  const server: Server = createServer((req, res) => {
    requests.push({ path: (req.url ?? "").split("?")[0] ?? "", origin: req.headers.origin });
    res.shouldKeepAlive = false;
    if (handler) handler(req, res);
    else waiting.push([req, res]);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    issuer,
    requests,
    async open(client) {
      const redirectOrigin = new URL(client.redirectUri).origin;
      const provider = await quietly(
        async () =>
          new Provider(issuer, {
            clients: [
              {
                client_id: client.clientId,
                token_endpoint_auth_method: "none", // public: a page keeps no secret
                grant_types: ["authorization_code"],
                response_types: ["code"],
                redirect_uris: [client.redirectUri],
                id_token_signed_response_alg: "ES256",
              },
            ],
            jwks: { keys: [await signingKey("login-1")] },
            pkce: { required: () => true },
            // CORS only for the client's own page, on every endpoint it fetches (discovery, token).
            clientBasedCORS: (_ctx, origin, found) => found.clientId === client.clientId && origin === redirectOrigin,
            findAccount: (_ctx, id) => ({
              accountId: id,
              claims: () => ({ sub: id, groups: [...(client.groups?.[id] ?? [])] }),
            }),
            // Groups with the `openid` scope itself, as a provider with a group mapper gives them: the page asks for no other scope.
            claims: { openid: ["sub", "groups"] },
            features: { devInteractions: { enabled: true } },
            ttl: { Interaction: 600, Session: 3600, Grant: 3600, AccessToken: 3600, IdToken: 3600, AuthorizationCode: 60 },
            cookies: { keys: ["a-cookie-signing-key-for-the-test-provider"] },
          }),
      );
      provider.on("server_error", (_ctx, error) => console.error("provider:", error));
      const callback = provider.callback();
      handler = (req, res) => void callback(req, res);
      for (const [req, res] of waiting.splice(0)) handler(req, res);
    },
    async stop() {
      handler = undefined;
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
