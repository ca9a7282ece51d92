/**
 * Checks that what the HTTP tests receive is what the served OpenAPI document (`GET /v1/__api__`)
 * says, with Ajv (not the code that writes the document): every answer the test servers give
 * through `TestServer.request` is recorded, and checked when the server stops (or when the run
 * ends) against that server's own document. An answer fails when its path and method have an
 * operation whose responses lack its status, when it carries a header the response does not
 * document (beyond generic HTTP ones), or when its body has a media type the response does not
 * list or does not validate against the documented schema. A method without an operation must
 * answer 405; paths the document does not describe (unknown URLs, redirected spellings, the
 * admin page) are skipped, and so are batch sub-responses.
 */
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";

export interface Exchange {
  readonly method: string;
  /** As requested: `/v1/articles?_limit=2`. */
  readonly path: string;
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
}

/** Headers of HTTP itself, or set for every answer by the server's plumbing: never documented per response. */
const GENERIC_HEADERS = new Set([
  "content-type",
  "content-length",
  "date",
  "connection",
  "keep-alive",
  "transfer-encoding",
  "vary",
  "cache-control",
  "expires",
  "pragma",
  "x-content-type-options",
  "content-security-policy",
  "referrer-policy",
]);

const METHODS = new Set(["get", "head", "post", "put", "patch", "delete", "options"]);

// ajv-formats is CommonJS: its default export is the plugin function, under `default` once more for ESM callers.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => void;

type Json = Record<string, unknown>;

const problems: string[] = [];
let checked = 0;
const pending = new Set<ConformanceLog>();

/** What every check found so far (the root hook fails the run when it is not empty). */
export function conformance(): { problems: readonly string[]; checked: number } {
  return { problems, checked };
}

/** Logs still open (servers never stopped): checked by the root hook. */
export async function checkPendingLogs(): Promise<void> {
  for (const log of [...pending]) await log.check();
}

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function pointer(segments: readonly string[]): string {
  return segments.map((s) => encodeURIComponent(s.replaceAll("~", "~0").replaceAll("/", "~1"))).join("/");
}

/** Document paths as matchers: `/articles/{id}` matches one segment for `{id}`. */
function pathMatchers(document: Json): { template: string; regex: RegExp }[] {
  const paths = isObject(document.paths) ? Object.keys(document.paths) : [];
  return paths
    .map((template) => ({
      template,
      regex: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{[^/}]+\}/g, "[^/]+")}$`),
    }))
    .sort((a, b) => Number(/\{/.test(a.template)) - Number(/\{/.test(b.template)));
}

class DocumentChecker {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: false });
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly matchers: { template: string; regex: RegExp }[];
  private readonly base: string;

  constructor(private readonly document: Json) {
    addFormats(this.ajv);
    this.ajv.addSchema({ ...document, $id: "openapi" }, undefined, undefined, false);
    this.matchers = pathMatchers(document);
    const servers = Array.isArray(document.servers) ? document.servers : [];
    const url = isObject(servers[0]) && typeof servers[0].url === "string" ? servers[0].url : "/v1";
    this.base = new URL(url, "http://localhost").pathname.replace(/\/$/, "");
  }

  problemsOf(exchange: Exchange): string[] {
    const url = new URL(exchange.path, "http://localhost");
    // Exactly the document's paths: other spellings (`/v1`, a trailing slash) are redirected, not served.
    if (!url.pathname.startsWith(`${this.base}/`)) return [];
    const local = url.pathname.slice(this.base.length);
    const match = this.matchers.find((m) => m.regex.test(local));
    if (!match) return [];
    const where = `${exchange.method} ${exchange.path} → ${exchange.status}`;
    const item = (this.document.paths as Json)[match.template] as Json;
    const method = exchange.method.toLowerCase();
    const operation = METHODS.has(method) ? item[method] : undefined;
    if (!isObject(operation)) return exchange.status === 405 ? [] : [`${where}: no ${method} operation on ${match.template}`];
    const responses = operation.responses as Json;
    const key = String(exchange.status) in responses ? String(exchange.status) : "default" in responses ? "default" : undefined;
    if (key === undefined) return [`${where}: status not documented on ${method} ${match.template}`];
    let segments = ["paths", match.template, method, "responses", key];
    let response = responses[key] as Json;
    if (typeof response.$ref === "string") {
      segments = response.$ref.replace(/^#\//, "").split("/");
      response = segments.reduce<unknown>((at, s) => (isObject(at) ? at[s] : undefined), this.document) as Json;
    }
    const found: string[] = [];
    const documented = new Set(Object.keys(isObject(response.headers) ? response.headers : {}).map((h) => h.toLowerCase()));
    exchange.headers.forEach((_value, name) => {
      if (!GENERIC_HEADERS.has(name) && !documented.has(name)) found.push(`${where}: header ${name} not documented`);
    });
    if (exchange.method === "HEAD" || exchange.status === 304 || exchange.text === "") return found;
    const mediaType = (exchange.headers.get("content-type") ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
    const content = isObject(response.content) ? response.content : {};
    if (!(mediaType in content)) return [...found, `${where}: body of type ${mediaType || "(none)"} not documented`];
    if (mediaType !== "application/json") return found;
    const schemaPointer = pointer([...segments, "content", mediaType, "schema"]);
    let validate = this.validators.get(schemaPointer);
    if (!validate) {
      validate = this.ajv.compile({ $ref: `openapi#/${schemaPointer}` });
      this.validators.set(schemaPointer, validate);
    }
    let body: unknown;
    try {
      body = JSON.parse(exchange.text);
    } catch {
      return [...found, `${where}: body is not JSON`];
    }
    if (!validate(body)) found.push(`${where}: body does not match: ${this.ajv.errorsText(validate.errors)}`);
    return found;
  }
}

/** What disagrees with `document` among `exchanges`: the root hook's check, for a test that asserts it itself. */
export function problemsAgainst(document: Json, exchanges: readonly Exchange[]): string[] {
  const checker = new DocumentChecker(document);
  return exchanges.flatMap((exchange) => checker.problemsOf(exchange));
}

/** The answers of one test server, checked against its own document. */
export class ConformanceLog {
  private exchanges: Exchange[] = [];

  constructor(private readonly url: string) {
    pending.add(this);
  }

  record(exchange: Exchange): void {
    this.exchanges.push(exchange);
  }

  /** Fetches the server's document and checks what was recorded; a server that serves none is not judged. */
  async check(): Promise<void> {
    pending.delete(this);
    const exchanges = this.exchanges;
    this.exchanges = [];
    if (exchanges.length === 0) return;
    let document: unknown;
    try {
      const response = await fetch(`${this.url}/v1/__api__`);
      if (response.status !== 200) return;
      document = await response.json();
    } catch {
      return; // stopped already, or its backends are down: nothing to compare with
    }
    if (!isObject(document)) return;
    const checker = new DocumentChecker(document);
    for (const exchange of exchanges) {
      checked += 1;
      for (const problem of checker.problemsOf(exchange)) if (!problems.includes(problem)) problems.push(problem);
    }
  }
}
