/**
 * One provider's discovery document and signing keys, fetched when first needed and kept:
 * fetched again when older than `jwks_max_age_seconds` (in the background, the old keys serving
 * meanwhile: rotation), and on a token whose `kid` is unknown, at most once per
 * `jwks_cooldown_seconds` (invented kids cannot make us hammer the provider). After a failed
 * fetch, further attempts wait a few seconds; until keys were fetched once, requests needing them
 * get ProviderUnavailable.
 */
import { createLocalJWKSet, type FlattenedJWSInput, type JSONWebKeySet, type JWSHeaderParameters, type JWK } from "jose";
import type { JsonObject } from "../../../domain/json.js";
import type { OpenIdSettings } from "./openid-settings.js";
import { getJsonDocument, ProviderUnavailable } from "./provider-fetch.js";

export interface ProviderMetadata {
  readonly issuer: string;
  readonly jwksUri: string;
  readonly userinfoEndpoint: string | undefined;
}

type KeyLookup = ReturnType<typeof createLocalJWKSet>;
type VerificationKey = Awaited<ReturnType<KeyLookup>>;

/** Longest wait after a failed fetch before the provider is asked again. */
const MAX_FAILURE_BACKOFF_MS = 5000;

/** Key types that verify signatures with a public key; `oct` (a shared secret) never comes from a JWKS. */
const PUBLIC_KEY_TYPES = new Set(["RSA", "EC", "OKP"]);

export class ProviderKeys {
  private metadata: { value: ProviderMetadata; fetchedAt: number } | undefined;
  private keys: { lookup: KeyLookup; fetchedAt: number } | undefined;
  private lastKeyFetch = Number.NEGATIVE_INFINITY;
  private lastFailure = Number.NEGATIVE_INFINITY;
  private pending: Promise<void> | undefined;

  constructor(
    private readonly settings: OpenIdSettings,
    private readonly now: () => number = Date.now,
    private readonly onBackgroundFailure: (error: unknown) => void = () => {},
  ) {}

  /** The discovery document, fetched if never fetched yet. */
  async discovery(): Promise<ProviderMetadata> {
    if (!this.metadata) await this.refresh(true);
    this.refreshIfOld();
    if (!this.metadata) throw new ProviderUnavailable(this.discoveryUrl, "no discovery document");
    return this.metadata.value;
  }

  /** The key that should verify a token with this header (for jose's jwtVerify). */
  readonly key = async (header: JWSHeaderParameters, token: FlattenedJWSInput): Promise<VerificationKey> => {
    if (!this.keys) await this.refresh(true);
    this.refreshIfOld();
    const first = this.keys;
    if (!first) throw new ProviderUnavailable(this.discoveryUrl, "no keys");
    try {
      return await first.lookup(header, token);
    } catch (error) {
      if (!isNoMatchingKey(error) || !this.mayFetchKeys()) throw error;
      await this.refresh(false); // a rotation may have published the key since
      const again = this.keys;
      if (!again || again === first) throw error;
      return again.lookup(header, token);
    }
  };

  private get discoveryUrl(): string {
    return `${this.settings.issuer.replace(/\/+$/, "")}/.well-known/openid-configuration`;
  }

  private mayFetchKeys(): boolean {
    const now = this.now();
    return now - this.lastKeyFetch >= this.settings.jwksCooldownSeconds * 1000 && now - this.lastFailure >= this.failureBackoffMs;
  }

  private get failureBackoffMs(): number {
    return Math.min(this.settings.jwksCooldownSeconds * 1000, MAX_FAILURE_BACKOFF_MS);
  }

  /** Old keys keep serving while new ones are fetched; a failure is only logged. */
  private refreshIfOld(): void {
    const keys = this.keys;
    if (!keys || this.now() - keys.fetchedAt < this.settings.jwksMaxAgeSeconds * 1000) return;
    if (this.pending || this.now() - this.lastFailure < this.failureBackoffMs) return;
    this.refresh(true).catch(this.onBackgroundFailure);
  }

  /** One fetch at a time; callers arriving meanwhile share it. */
  private refresh(withDiscovery: boolean): Promise<void> {
    if (this.now() - this.lastFailure < this.failureBackoffMs && !this.pending)
      return Promise.reject(new ProviderUnavailable(this.discoveryUrl, "failed moments ago; not asked again yet"));
    this.pending ??= this.fetchAll(withDiscovery).finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }

  private async fetchAll(withDiscovery: boolean): Promise<void> {
    try {
      const old = this.metadata && this.now() - this.metadata.fetchedAt >= this.settings.jwksMaxAgeSeconds * 1000;
      if (withDiscovery || !this.metadata || old) {
        const document = await getJsonDocument(this.discoveryUrl, this.timeoutMs);
        this.metadata = { value: this.readDiscovery(document), fetchedAt: this.now() };
      }
      this.lastKeyFetch = this.now();
      const jwksUri = this.metadata.value.jwksUri;
      const set = await getJsonDocument(jwksUri, this.timeoutMs);
      this.keys = { lookup: this.readKeySet(jwksUri, set), fetchedAt: this.now() };
    } catch (error) {
      this.lastFailure = this.now();
      throw error;
    }
  }

  private get timeoutMs(): number {
    return this.settings.providerTimeoutSeconds * 1000;
  }

  private readDiscovery(document: JsonObject): ProviderMetadata {
    const url = this.discoveryUrl;
    if (document.issuer !== this.settings.issuer)
      throw new ProviderUnavailable(url, `discovery names issuer ${JSON.stringify(document.issuer)}, not ${this.settings.issuer}`);
    const jwksUri = httpUrl(document.jwks_uri);
    if (!jwksUri) throw new ProviderUnavailable(url, "discovery has no http(s) jwks_uri");
    return {
      issuer: this.settings.issuer,
      jwksUri,
      userinfoEndpoint: httpUrl(document.userinfo_endpoint),
    };
  }

  private readKeySet(url: string, document: JsonObject): KeyLookup {
    if (!Array.isArray(document.keys)) throw new ProviderUnavailable(url, "key set has no keys");
    const keys = document.keys.filter(
      (key): key is JsonObject =>
        typeof key === "object" &&
        key !== null &&
        !Array.isArray(key) &&
        typeof key.kty === "string" &&
        PUBLIC_KEY_TYPES.has(key.kty) &&
        key.use !== "enc",
    );
    // Only the public members matter; a provider that published private parts still gets them ignored.
    const published: JSONWebKeySet = { keys: keys.map(({ d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, ...rest }) => rest as JWK) };
    try {
      return createLocalJWKSet(published);
    } catch (error) {
      throw new ProviderUnavailable(url, error instanceof Error ? error.message : "invalid key set");
    }
  }
}

function isNoMatchingKey(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === "ERR_JWKS_NO_MATCHING_KEY";
}

function httpUrl(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  try {
    const url = new URL(value);
    return url.protocol === "https:" || url.protocol === "http:" ? value : undefined;
  } catch {
    return undefined;
  }
}
