/** A Tessera server whose settings come from INI text (per-policy settings are dotted names), and a bearer-aware client. */
import { pino } from "pino";
import { startServer, type RunningServer } from "../../src/bootstrap/server.js";
import { settingsFromIni } from "./account-ini.js";
import type { TestResponse } from "./http.js";

export interface IniServer {
  readonly url: string;
  readonly running: RunningServer;
  /** `auth`: a full Authorization value (`Bearer …`, `Basic …`). */
  request(method: string, path: string, options?: { auth?: string; body?: unknown }): Promise<TestResponse>;
  stop(): Promise<void>;
}

export const basic = (credentials: string) => `Basic ${Buffer.from(credentials).toString("base64")}`;

export async function startIniServer(ini: string, warnings: string[] = []): Promise<IniServer> {
  const logger = pino({ level: "warn" }, { write: (line: string) => void warnings.push(line) });
  const running = await startServer(settingsFromIni(ini), { logger });
  return {
    url: running.url,
    running,
    async request(method, path, options = {}) {
      const headers: Record<string, string> = {};
      if (options.auth) headers.Authorization = options.auth;
      if (options.body !== undefined) headers["Content-Type"] = "application/json";
      const response = await fetch(`${running.url}${path}`, {
        method,
        headers,
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
      });
      const text = await response.text();
      let body: unknown = text;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        // not JSON
      }
      return { status: response.status, headers: response.headers, body };
    },
    stop: () => running.stop(),
  };
}
