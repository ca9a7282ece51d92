/**
 * Access to the real PostgreSQL and Redis the adapter suites need. When one is missing the
 * suite skips loudly, except under CI (any non-empty `CI`) where it fails: CI must never pass
 * without them.
 */
import net from "node:net";

export const POSTGRES_URL = process.env.TESSERA_TEST_POSTGRES_URL ?? "postgresql://postgres@127.0.0.1:5432/test";
export const REDIS_URL = process.env.TESSERA_TEST_REDIS_URL ?? "redis://127.0.0.1:6379/15";

function reachable(url: string, defaultPort: number): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect({ host: hostname || "127.0.0.1", port: Number(port) || defaultPort });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  });
}

/** Any non-empty `CI` (`true`, `1`, `yes`…) means CI, as most CI systems set it. */
export function underCi(env: NodeJS.ProcessEnv = process.env): boolean {
  return (env.CI ?? "") !== "";
}

/**
 * Call inside `describe` with a `before` hook: skips the suite (with a warning) when the
 * service is down, or fails it under CI.
 */
export function requireService(name: "postgresql" | "redis"): void {
  before(async function () {
    const url = name === "postgresql" ? POSTGRES_URL : REDIS_URL;
    if (await reachable(url, name === "postgresql" ? 5432 : 6379)) return;
    const message = `${name} is not reachable at ${url}`;
    if (underCi()) throw new Error(`${message} (CI=${process.env.CI}: suites needing it fail instead of skipping)`);
    console.warn(`\n  SKIPPING: ${message}. Start it (see docs/development.md, "Tests") to run these tests.\n`);
    this.skip();
  });
}
