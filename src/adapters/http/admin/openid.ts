/**
 * Signing in with an OpenID Connect provider the service lists in its root view
 * (`capabilities.openid.providers`, as Kinto's openid plugin does): authorization code with PKCE
 * (RFC 7636), done entirely in the browser, a public client with no secret. The page fetches the
 * provider's discovery document, sends the browser to its authorization endpoint, and on the way
 * back exchanges the code at its token endpoint; the service then verifies the token itself.
 */
import { isObject, type Json, type JsonObject } from "./api.js";
import { randomToken, s256Challenge } from "./pkce.js";

export interface Provider {
  readonly name: string;
  readonly issuer: string;
  readonly clientId: string;
  readonly headerType: string;
  /** Where the discovery document is, and the endpoints when the service already names them. */
  readonly discoveryUrl: string;
  readonly authorizationEndpoint: string | undefined;
  readonly tokenEndpoint: string | undefined;
}

/** A signed-in provider session: what the page sends, and until when. */
export interface TokenSession {
  readonly provider: string;
  readonly authorization: string;
  /** Milliseconds since the epoch; undefined when the provider did not say. */
  readonly expiresAt: number | undefined;
}

/** The flow's one-time values, kept across the redirect (this tab only) and deleted on the way back. */
interface Pending {
  readonly provider: string;
  readonly issuer: string;
  readonly clientId: string;
  readonly headerType: string;
  readonly tokenEndpoint: string;
  readonly redirectUri: string;
  readonly state: string;
  readonly nonce: string;
  readonly verifier: string;
}

const PENDING_KEY = "tessera.admin.openid.pending";

export function providersOf(capabilities: Json | undefined): Provider[] {
  const openid = isObject(capabilities) ? capabilities.openid : undefined;
  const listed = isObject(openid) && Array.isArray(openid.providers) ? openid.providers.filter(isObject) : [];
  const optional = (value: Json | undefined) => (typeof value === "string" ? value : undefined);
  return listed.flatMap((p) =>
    typeof p.name === "string" && typeof p.issuer === "string" && typeof p.client_id === "string"
      ? [
          {
            name: p.name,
            issuer: p.issuer,
            clientId: p.client_id,
            headerType: optional(p.header_type) ?? "Bearer",
            discoveryUrl: optional(p.discovery_url) ?? `${p.issuer.replace(/\/+$/, "")}/.well-known/openid-configuration`,
            authorizationEndpoint: optional(p.authorization_endpoint),
            tokenEndpoint: optional(p.token_endpoint),
          },
        ]
      : [],
  );
}

async function json(response: Response, what: string): Promise<JsonObject> {
  const body = (await response.json().catch(() => undefined)) as Json | undefined;
  if (!response.ok || !isObject(body)) {
    const reason = isObject(body) && typeof body.error_description === "string" ? `: ${body.error_description}` : "";
    throw new Error(`${what} failed (${response.status})${reason}`);
  }
  return body;
}

function redirectUri(): string {
  return `${location.origin}${location.pathname}`;
}

/** The provider's endpoints: as the service names them, else from its discovery document. */
async function endpoints(provider: Provider): Promise<{ authorize: string; token: string }> {
  if (provider.authorizationEndpoint !== undefined && provider.tokenEndpoint !== undefined)
    return { authorize: provider.authorizationEndpoint, token: provider.tokenEndpoint };
  const discovery = await json(await fetch(provider.discoveryUrl), `The discovery document of ${provider.name}`);
  const { authorization_endpoint: authorize, token_endpoint: token, issuer } = discovery;
  if (typeof authorize !== "string" || typeof token !== "string") throw new Error(`${provider.name}'s discovery document has no endpoints`);
  if (issuer !== provider.issuer) throw new Error(`${provider.name}'s discovery document names another issuer`);
  return { authorize, token };
}

/** Remembers the flow's one-time secrets for this tab, and leaves for the provider's sign-in page. */
export async function beginSignIn(provider: Provider): Promise<void> {
  const { authorize, token } = await endpoints(provider);
  const pending: Pending = {
    provider: provider.name,
    issuer: provider.issuer,
    clientId: provider.clientId,
    headerType: provider.headerType,
    tokenEndpoint: token,
    redirectUri: redirectUri(),
    state: randomToken(),
    nonce: randomToken(),
    verifier: randomToken(),
  };
  sessionStorage.setItem(PENDING_KEY, JSON.stringify(pending));
  const url = new URL(authorize);
  url.search = new URLSearchParams({
    response_type: "code",
    client_id: pending.clientId,
    redirect_uri: pending.redirectUri,
    scope: "openid",
    state: pending.state,
    nonce: pending.nonce,
    code_challenge: await s256Challenge(pending.verifier),
    code_challenge_method: "S256",
  }).toString();
  location.assign(url.toString());
}

/** The unverified claims of a JWT (the service verifies it; the page only reads its nonce). */
function claims(jwt: string): JsonObject {
  try {
    const payload = jwt.split(".")[1] ?? "";
    const parsed = JSON.parse(atob(payload.replace(/-/g, "+").replace(/_/g, "/"))) as Json;
    return isObject(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

/**
 * Back from the provider (`?code=…&state=…` or `?error=…`): checks the state (and `iss`, RFC
 * 9207, when sent), exchanges the code with the verifier, and clears the address bar. Undefined
 * when the page was not opened by a provider's redirect.
 */
export async function completeSignIn(): Promise<TokenSession | undefined> {
  const query = new URLSearchParams(location.search);
  if (!query.has("state")) return undefined;
  history.replaceState(null, "", location.pathname); // the code is single-use: never kept in history or reloaded
  const saved = sessionStorage.getItem(PENDING_KEY);
  sessionStorage.removeItem(PENDING_KEY);
  const pending = saved ? (JSON.parse(saved) as Pending) : undefined;
  if (!pending || query.get("state") !== pending.state)
    throw new Error("This sign-in was not started from this tab: please sign in again.");
  const error = query.get("error");
  if (error !== null) throw new Error(`${pending.provider} refused the sign-in: ${query.get("error_description") ?? error}`);
  const iss = query.get("iss");
  if (iss !== null && iss !== pending.issuer) throw new Error(`The answer did not come from ${pending.provider}.`);
  const code = query.get("code");
  if (code === null) throw new Error(`${pending.provider} sent no authorization code.`);
  const tokens = await json(
    await fetch(pending.tokenEndpoint, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Accept: "application/json" },
      body: new URLSearchParams({
        grant_type: "authorization_code",
        code,
        redirect_uri: pending.redirectUri,
        client_id: pending.clientId,
        code_verifier: pending.verifier,
      }),
    }),
    `The code exchange with ${pending.provider}`,
  );
  if (typeof tokens.id_token === "string" && claims(tokens.id_token).nonce !== pending.nonce)
    throw new Error(`${pending.provider}'s ID token was not issued for this sign-in.`);
  // The access token, as Kinto's openid clients send it; the ID token only from a provider that issues no access token.
  const token = typeof tokens.access_token === "string" ? tokens.access_token : tokens.id_token;
  if (typeof token !== "string") throw new Error(`${pending.provider} issued no token.`);
  const lifetime = typeof tokens.expires_in === "number" ? tokens.expires_in * 1000 : undefined;
  return {
    provider: pending.provider,
    authorization: `${pending.headerType} ${token}`,
    expiresAt: lifetime === undefined ? undefined : Date.now() + lifetime,
  };
}
