/**
 * GET of a JSON document from an identity provider, with a time limit and a size limit. Any
 * failure (network, status, size, not JSON) is a ProviderUnavailable: the provider cannot answer
 * now, which the policy turns into a 503, never into a verdict on a token.
 */
import type { JsonObject } from "../../../domain/json.js";

/** Larger than any discovery document, key set or userinfo answer a provider sends. */
const MAX_DOCUMENT_BYTES = 1 << 20;

export class ProviderUnavailable extends Error {
  constructor(
    readonly url: string,
    reason: string,
  ) {
    super(`${url}: ${reason}`);
  }
}

export interface ProviderAnswer {
  readonly status: number;
  /** The JSON object answered with a 200, else undefined. */
  readonly body: JsonObject | undefined;
}

/** The answer to a GET; a status other than 200 is returned, not thrown, for the caller to judge. */
export async function getJson(url: string, timeoutMs: number, headers: Record<string, string> = {}): Promise<ProviderAnswer> {
  let response: Response;
  try {
    response = await fetch(url, {
      headers: { Accept: "application/json", ...headers },
      signal: AbortSignal.timeout(timeoutMs),
      redirect: "error",
    });
  } catch (error) {
    throw new ProviderUnavailable(url, reasonOf(error));
  }
  if (response.status !== 200) {
    await response.body?.cancel();
    return { status: response.status, body: undefined };
  }
  const declared = Number(response.headers.get("content-length") ?? "0");
  if (declared > MAX_DOCUMENT_BYTES) {
    await response.body?.cancel();
    throw new ProviderUnavailable(url, `answer of ${declared} bytes`);
  }
  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    throw new ProviderUnavailable(url, error instanceof Error ? error.message : String(error));
  }
  if (text.length > MAX_DOCUMENT_BYTES) throw new ProviderUnavailable(url, "answer too large");
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ProviderUnavailable(url, "answer is not JSON");
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
    throw new ProviderUnavailable(url, "answer is not a JSON object");
  return { status: 200, body: parsed as JsonObject };
}

/** fetch's own message says little ("fetch failed"); its cause says why (ECONNREFUSED, a timeout...). */
function reasonOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause as { code?: unknown; message?: unknown } | undefined;
  const detail = typeof cause?.code === "string" ? cause.code : typeof cause?.message === "string" ? cause.message : undefined;
  return detail ? `${error.message} (${detail})` : error.message;
}

/** Like getJson, but anything other than a 200 is a ProviderUnavailable. */
export async function getJsonDocument(url: string, timeoutMs: number): Promise<JsonObject> {
  const answer = await getJson(url, timeoutMs);
  if (answer.body === undefined) throw new ProviderUnavailable(url, `status ${answer.status}`);
  return answer.body;
}
