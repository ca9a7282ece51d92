/**
 * A real Tessera server on port 0 (memory backends unless told otherwise) and a small fetch
 * client with Basic Auth users, for HTTP tests.
 */
import { createHmac } from "node:crypto";
import { pino } from "pino";
import type { TesseraExtension } from "../../src/application/extension.js";
import type { Clock } from "../../src/application/ports/clock.js";
import { startServer, type RunningServer } from "../../src/bootstrap/server.js";
import { loadSettings } from "../../src/bootstrap/settings.js";
import { ConformanceLog } from "./openapi-conformance.js";

export const TEST_SECRET = "test-secret";

export const BASE_SETTINGS: Record<string, string> = {
  resources: "notes:user articles:shareable",
  permission_backend: "memory",
  userid_hmac_secret: TEST_SECRET,
  articles_create_principals: "system.Authenticated",
  listen_port: "0",
};

export interface TestResponse {
  status: number;
  headers: Headers;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON of any shape, asserted by the tests
}

export interface RequestOptions {
  user?: string;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
}

export interface TestServer {
  readonly url: string;
  readonly running: RunningServer;
  request(method: string, path: string, options?: RequestOptions): Promise<TestResponse>;
  stop(): Promise<void>;
}

/**
 * `basicauth:<hex HMAC-SHA256 of "user:pass" keyed with the secret>`, computed here from the
 * spec's definition, never with the product's own policy.
 */
export function userId(credentials: string, secret = TEST_SECRET): string {
  return `basicauth:${createHmac("sha256", secret).update(credentials, "utf8").digest("hex")}`;
}

export function settingsFrom(overrides: Record<string, string | undefined> = {}) {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries({ ...BASE_SETTINGS, ...overrides })) {
    if (value !== undefined) env[`TESSERA_${name.toUpperCase().replace(/[.-]/g, "_")}`] = value;
  }
  return loadSettings({ argv: [], env, defaultFile: false });
}

export async function startTestServer(
  overrides: Record<string, string | undefined> = {},
  extensions: TesseraExtension[] = [],
  clock?: Clock,
): Promise<TestServer> {
  const running = await startServer(settingsFrom(overrides), { extensions, logger: pino({ level: "silent" }), clock });
  const url = running.url;
  const log = new ConformanceLog(url);
  return {
    url,
    running,
    async request(method, path, options = {}) {
      const headers: Record<string, string> = { ...options.headers };
      if (options.user) headers.Authorization = `Basic ${Buffer.from(options.user).toString("base64")}`;
      let body: string | undefined = options.rawBody;
      if (options.body !== undefined) {
        body = JSON.stringify(options.body);
        headers["Content-Type"] ??= "application/json";
      }
      const response = await fetch(`${url}${path}`, { method, headers, body, redirect: "manual" });
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        // not JSON: the test sees the raw text
      }
      log.record({ method, path, status: response.status, headers: response.headers, text });
      return { status: response.status, headers: response.headers, body: parsed };
    },
    async stop() {
      await log.check(); // while the server still serves its document
      await running.stop();
    },
  };
}
