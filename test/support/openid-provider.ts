/**
 * A real OpenID Connect provider (the certified `oidc-provider` package) on a loopback port, for
 * tests and benchmarks. Each "person" is a client of the provider: its client_credentials grant,
 * with a resource indicator, yields a JWT access token whose `sub` is the client id and whose
 * `groups` claim is the person's groups. Opaque tokens for the userinfo path are minted by the
 * provider's own models (a grant and an access token), then answered by its userinfo endpoint.
 * Every request the provider receives is counted by path, and may be held a while (a slow provider).
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, type JWK } from "jose";

/**
 * Runs `work` with console.warn and console.info silenced: oidc-provider announces, on import and
 * construction, that Node 20 is not its preferred runtime and that its in-memory storage is for
 * development, which is what a test wants.
 */
export async function quietly<T>(work: () => T | Promise<T>): Promise<T> {
  const { warn, info } = console;
  console.warn = () => {};
  console.info = () => {};
  try {
    return await work();
  } finally {
    console.warn = warn;
    console.info = info;
  }
}

const { default: Provider, errors: providerErrors } = await quietly(() => import("oidc-provider"));

/** Resource indicator → the `aud` of the tokens issued for it. */
export const RESOURCES = {
  tessera: { indicator: "urn:tessera", audience: "tessera-api", ttl: 3600 },
  other: { indicator: "urn:other", audience: "other-api", ttl: 3600 },
  shortLived: { indicator: "urn:tessera:short", audience: "tessera-api", ttl: 1 },
} as const;

export type ResourceName = keyof typeof RESOURCES;

export interface PersonSpec {
  readonly groups?: readonly string[];
}

export interface ProviderOptions {
  /** Private signing keys (JWK with `kid`); the first signs. */
  readonly keys: readonly JWK[];
  /** Client id → person. */
  readonly people: Readonly<Record<string, PersonSpec>>;
  /** Loopback port to listen on (0: any free one). */
  readonly port?: number;
  /** Issuer URL; by default http://127.0.0.1:<port>. */
  readonly issuer?: string;
}

export interface TestProvider {
  readonly issuer: string;
  readonly port: number;
  /** Requests received per path since start. */
  readonly requests: Map<string, number>;
  count(path: string): number;
  /** Holds each later request to `path` for `ms` before it is answered (0: at once): a slow provider. */
  slowDown(path: string, ms: number): void;
  /** A JWT access token for this person (client_credentials grant, resource indicator). */
  accessToken(person: string, resource?: ResourceName): Promise<string>;
  /** An opaque access token for this person, usable at the userinfo endpoint. */
  opaqueToken(person: string): Promise<string>;
  stop(): Promise<void>;
}

export const CLIENT_SECRET = "a-client-secret-long-enough-for-the-provider";

/** A new ES256 (P-256) signing key, private, with this `kid`. */
export async function signingKey(kid: string): Promise<JWK> {
  const { privateKey } = await generateKeyPair("ES256", { extractable: true });
  return { ...(await exportJWK(privateKey)), kid, alg: "ES256", use: "sig" };
}

export async function startProvider(options: ProviderOptions): Promise<TestProvider> {
  const requests = new Map<string, number>();
  const delays = new Map<string, number>();
  let handler: ((req: import("node:http").IncomingMessage, res: import("node:http").ServerResponse) => void) | undefined;
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? "").split("?")[0] ?? "";
    requests.set(path, (requests.get(path) ?? 0) + 1);
    // No kept-alive sockets: a provider stopped and started again on its port meets no stale one.
    res.shouldKeepAlive = false;
    const answer = () => (handler ? handler(req, res) : res.writeHead(503).end());
    const delay = delays.get(path) ?? 0;
    if (delay > 0) setTimeout(answer, delay);
    else answer();
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const issuer = options.issuer ?? `http://127.0.0.1:${port}`;
  const resources = Object.values(RESOURCES);

  const provider = await quietly(
    () =>
      new Provider(issuer, {
        clients: Object.keys(options.people).map((clientId) => ({
          client_id: clientId,
          client_secret: CLIENT_SECRET,
          grant_types: ["client_credentials", "authorization_code"],
          response_types: ["code"],
          redirect_uris: ["https://client.example/callback"],
        })),
        jwks: { keys: [...options.keys] },
        ttl: {
          ClientCredentials: (_ctx, token) => token.resourceServer?.accessTokenTTL ?? 3600,
          AccessToken: 3600,
          Grant: 3600,
        },
        clientDefaults: { id_token_signed_response_alg: "ES256" },
        findAccount: (_ctx, id) => ({
          accountId: id,
          claims: () => ({ sub: id, groups: [...(options.people[id]?.groups ?? [])] }),
        }),
        claims: { openid: ["sub"], groups: ["groups"] },
        scopes: ["openid", "groups"],
        features: {
          clientCredentials: { enabled: true },
          devInteractions: { enabled: false },
          resourceIndicators: {
            enabled: true,
            defaultResource: () => RESOURCES.tessera.indicator,
            useGrantedResource: () => true,
            getResourceServerInfo: (_ctx, indicator) => {
              const resource = resources.find((r) => r.indicator === indicator);
              if (!resource) throw new providerErrors.InvalidTarget();
              return {
                scope: "read",
                audience: resource.audience,
                accessTokenTTL: resource.ttl,
                accessTokenFormat: "jwt",
                jwt: { sign: { alg: "ES256" } },
              };
            },
          },
        },
        extraTokenClaims: (_ctx, token) => {
          const person = options.people[token.clientId ?? ""];
          return person?.groups ? { groups: [...person.groups] } : undefined;
        },
      }),
  );
  provider.on("server_error", () => {}); // a test that breaks the provider on purpose needs no stack trace
  const callback = provider.callback();
  handler = (req, res) => void callback(req, res);

  return {
    issuer,
    port,
    requests,
    count: (path) => requests.get(path) ?? 0,
    slowDown: (path, ms) => void delays.set(path, ms),
    async accessToken(person, resource = "tessera") {
      const response = await fetch(`${issuer}/token`, {
        method: "POST",
        headers: {
          "Content-Type": "application/x-www-form-urlencoded",
          Authorization: `Basic ${Buffer.from(`${encodeURIComponent(person)}:${encodeURIComponent(CLIENT_SECRET)}`).toString("base64")}`,
        },
        body: new URLSearchParams({ grant_type: "client_credentials", resource: RESOURCES[resource].indicator, scope: "read" }),
      });
      const body = (await response.json()) as { access_token?: string; error?: string; error_description?: string };
      if (!body.access_token) throw new Error(`token endpoint: ${response.status} ${body.error ?? ""} ${body.error_description ?? ""}`);
      return body.access_token;
    },
    async opaqueToken(person) {
      const client = await provider.Client.find(person);
      if (!client) throw new Error(`no client ${person}`);
      const grant = new provider.Grant({ accountId: person, clientId: person });
      grant.addOIDCScope("openid groups");
      const grantId = await grant.save();
      const token = new provider.AccessToken({ accountId: person, client, grantId, scope: "openid groups", gty: "authorization_code" });
      return token.save();
    },
    async stop() {
      handler = undefined;
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
