/**
 * The opaque-token path: the provider's userinfo endpoint says who holds a token (as Kinto asks it
 * for every token). Its answer is kept in the cache backend under a keyed hash of the token (never
 * the token itself), for `userinfo_cache_seconds`; a refusal is kept for a shorter time, so the
 * same junk is not sent twice. A token not in the cache is asked about only within its client
 * address's budget and share of the slots (UserinfoAdmission): beyond the budget it is refused
 * unasked; with no slot free the request is answered 503 rather than queued against the provider.
 */
import { createHmac } from "node:crypto";
import type { Cache } from "../../../application/ports/cache.js";
import type { JsonValue } from "../../../domain/json.js";
import type { OpenIdSettings } from "./openid-settings.js";
import { getJson, ProviderUnavailable } from "./provider-fetch.js";
import type { ProviderKeys } from "./provider-keys.js";
import { identityFrom, type TokenIdentity } from "./token-claims.js";
import { UserinfoAdmission } from "./userinfo-admission.js";

const REFUSAL_SECONDS = 30;

export class UserinfoLookup {
  private readonly admission: UserinfoAdmission;

  constructor(
    private readonly settings: OpenIdSettings,
    private readonly keys: ProviderKeys,
    private readonly cache: Cache,
    private readonly hashKey: string,
    now: () => number,
  ) {
    this.admission = new UserinfoAdmission(settings.userinfoRefusalsPerAddress, settings.userinfoRefusalWindowSeconds * 1000, now);
  }

  /**
   * The token's identity, or undefined when the provider refuses it (or the address's budget is
   * spent); throws ProviderUnavailable when the provider cannot say, or no slot is free.
   */
  async identify(token: string, clientAddress: string | undefined): Promise<{ identity: TokenIdentity; seconds: number } | undefined> {
    const key = `openid:${this.settings.name}:userinfo:${createHmac("sha256", this.hashKey).update(token).digest("hex")}`;
    const cached = storedIdentity(await this.cache.get(key));
    if (cached === null) return undefined;
    if (cached) return { identity: cached, seconds: Math.max(0, await this.cache.ttl(key)) };
    // Requests without an address (none today) share one budget.
    const ticket = this.admission.admit(clientAddress ?? "");
    if (ticket === "spent") return undefined;
    if (ticket === "busy") throw new ProviderUnavailable(`${this.settings.issuer} (userinfo)`, "too many userinfo requests at once");
    let refused = false;
    try {
      const endpoint = (await this.keys.discovery()).userinfoEndpoint;
      if (!endpoint) return undefined;
      const answer = await getJson(endpoint, this.settings.providerTimeoutSeconds * 1000, { Authorization: `Bearer ${token}` });
      if (answer.status >= 500) throw new ProviderUnavailable(endpoint, `status ${answer.status}`);
      const identity = answer.body && identityFrom(answer.body, this.settings.useridField, this.settings.groupsClaim);
      refused = identity === undefined;
      const seconds = identity ? this.settings.userinfoCacheSeconds : Math.min(REFUSAL_SECONDS, this.settings.userinfoCacheSeconds);
      if (seconds > 0)
        await this.cache.set(key, identity ? { subject: identity.subject, groups: [...identity.groups] } : { refused: true }, seconds);
      return identity ? { identity, seconds } : undefined;
    } finally {
      ticket.finish(refused);
    }
  }
}

/** A cached identity, null for a cached refusal, undefined when nothing usable is cached. */
function storedIdentity(value: JsonValue | undefined): TokenIdentity | null | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  if (value.refused === true) return null;
  const { subject, groups } = value;
  if (typeof subject !== "string" || !Array.isArray(groups)) return undefined;
  return { subject, groups: groups.filter((g): g is string => typeof g === "string") };
}
