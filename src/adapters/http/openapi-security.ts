/**
 * The OpenAPI security schemes of the enabled authentication policies, read from the root view's
 * capabilities (what the server announces is what it documents): `basicAuth` for Basic Auth and
 * accounts (both send `Authorization: Basic`), one scheme per OpenID Connect provider
 * (`capabilities.openid.providers`), and the requirement lists that name them.
 */
import { isJsonObject, type JsonObject, type JsonValue } from "../../domain/json.js";

export interface SecurityDocument {
  /** `components.securitySchemes`; undefined when no policy is enabled. */
  readonly schemes: JsonObject | undefined;
  /** One requirement per scheme, each on its own (any one of them authenticates). */
  readonly requirements: JsonObject[];
}

/** A component name of the provider's scheme: `openid_<policy>`, within the characters OpenAPI allows. */
export function openIdSchemeName(policy: string): string {
  return `openid_${policy.replace(/[^a-zA-Z0-9._-]/g, "_")}`;
}

function basicScheme(capabilities: JsonObject): JsonObject | undefined {
  const ways: string[] = [];
  if (Object.hasOwn(capabilities, "accounts")) ways.push("an account's `id:password` (user id `account:<id>`)");
  if (Object.hasOwn(capabilities, "basicauth")) ways.push("any `user:pass` (user id `basicauth:<hmac of user:pass>`)");
  if (ways.length === 0) return undefined;
  return { type: "http", scheme: "basic", description: `${ways.join("; or ")}.` };
}

/** `Bearer` tokens as the standard `http` scheme; another `header_type` (Kinto's setting) as the header it is. */
function providerScheme(provider: JsonObject): JsonObject | undefined {
  const { name, issuer, header_type: headerType, userid_field: useridField, discovery_url: discovery } = provider;
  if (typeof name !== "string" || typeof issuer !== "string") return undefined;
  const header = typeof headerType === "string" ? headerType : "Bearer";
  const field = typeof useridField === "string" ? useridField : "sub";
  const where = typeof discovery === "string" ? ` (discovery: ${discovery})` : "";
  const description = `An access token (or ID token) from the OpenID Connect provider ${issuer}${where}, sent as \`${header} <token>\`; the user id is \`${name}:<${field}>\`.`;
  return header.toLowerCase() === "bearer"
    ? { type: "http", scheme: "bearer", bearerFormat: "JWT", description }
    : { type: "apiKey", in: "header", name: "Authorization", description };
}

export function securityDocument(capabilities: JsonObject): SecurityDocument {
  const schemes: JsonObject = {};
  const basic = basicScheme(capabilities);
  if (basic) schemes.basicAuth = basic;
  const openid = capabilities.openid;
  const providers: JsonValue[] = isJsonObject(openid) && Array.isArray(openid.providers) ? openid.providers : [];
  for (const provider of providers.filter(isJsonObject)) {
    const scheme = providerScheme(provider);
    if (scheme) schemes[openIdSchemeName(provider.name as string)] = scheme;
  }
  const names = Object.keys(schemes);
  return { schemes: names.length > 0 ? schemes : undefined, requirements: names.map((name) => ({ [name]: [] })) };
}
