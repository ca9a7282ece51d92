/**
 * W1 (GET of one record, memory backends) authenticated by OpenID Connect bearer tokens against
 * W1 with Basic Auth, on the same server, in alternating rounds; reports both medians and their
 * ratio. The provider is a real one (oidc-provider, in this process, on a loopback port): the
 * server fetches its keys once, then every request checks a token it has already verified.
 *
 * The ratio is also given as the median of each round's pair (the two figures measured next to
 * each other), less sensitive to a machine whose load changes between rounds; and the cost of
 * the authentication step alone, in this process, per request for each scheme.
 *
 *   npm run build && node dist/bench/openid.js [--duration 10] [--warmup 3] [--rounds 3] [--connections 32]
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { measure, type Measurement } from "./load.js";
import { authorization, BENCH_SECRET, OWNER, recordData } from "./seed.js";
import { cliOf, freePort, startProcess } from "./server-process.js";
import { signingKey, startProvider, type TestProvider } from "../test/support/openid-provider.js";
import { BasicAuthPolicy } from "../src/adapters/auth/basic-auth-policy.js";
import { OpenIdConnectPolicy } from "../src/adapters/auth/openid/openid-connect-policy.js";
import { openIdSettings } from "../src/adapters/auth/openid/openid-settings.js";
import { MemoryCache } from "../src/adapters/memory/memory-cache.js";
import type { AuthenticationPolicy } from "../src/application/ports/authentication-policy.js";

const BUILD = fileURLToPath(new URL("../..", import.meta.url));

function option(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  const value = at >= 0 ? Number(process.argv[at + 1]) : fallback;
  if (!Number.isFinite(value) || value < 0) throw new Error(`--${name} must be a number`);
  return value;
}

/** Microseconds per call of `authenticate` for the same header, after a warm-up. */
async function authCost(policy: AuthenticationPolicy, header: string, calls: number): Promise<number> {
  const request = { header: (name: string) => (name === "authorization" ? header : undefined) };
  for (let i = 0; i < 1000; i += 1) await policy.authenticate(request);
  const started = process.hrtime.bigint();
  for (let i = 0; i < calls; i += 1) await policy.authenticate(request);
  return Number(process.hrtime.bigint() - started) / 1000 / calls;
}

async function authStep(provider: TestProvider, token: string): Promise<void> {
  const basic = new BasicAuthPolicy(BENCH_SECRET);
  const openid = new OpenIdConnectPolicy(openIdSettings("oidc", { issuer: provider.issuer, client_id: "tessera-api" }), {
    cache: new MemoryCache("bench:"),
    hashKey: BENCH_SECRET,
  });
  const basicUs = await authCost(basic, authorization(OWNER), 200_000);
  const bearerUs = await authCost(openid, `Bearer ${token}`, 200_000);
  console.log(`authentication step alone: Basic ${basicUs.toFixed(2)} us, bearer (remembered) ${bearerUs.toFixed(2)} us per request`);
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

async function main(): Promise<void> {
  const load = { duration: option("duration", 10), warmup: option("warmup", 3) };
  const rounds = option("rounds", 3);
  const connections = option("connections", 32);

  const provider = await startProvider({ keys: [await signingKey("bench-1")], people: { "bench-reader": {} } });
  const port = await freePort();
  const dir = mkdtempSync(path.join(tmpdir(), "tessera-openid-bench-"));
  const config = path.join(dir, "tessera.ini");
  writeFileSync(
    config,
    [
      "[app:main]",
      "listen_host = 127.0.0.1",
      `listen_port = ${port}`,
      "log_level = warn",
      `userid_hmac_secret = ${BENCH_SECRET}`,
      "storage_backend = memory",
      "permission_backend = memory",
      "cache_backend = memory",
      "resources = articles:shareable",
      "articles_create_principals = system.Authenticated",
      "multiauth.policies = oidc basicauth",
      "multiauth.policy.basicauth.wanted = true",
      "multiauth.policy.oidc.use = openid",
      `multiauth.policy.oidc.issuer = ${provider.issuer}`,
      "multiauth.policy.oidc.client_id = tessera-api",
      "",
    ].join("\n"),
  );
  const server = await startProcess(
    { args: [cliOf(BUILD), "serve"], cwd: BUILD, env: { TESSERA_CONFIG: config }, readyPath: "/v1/__lbheartbeat__" },
    port,
  );
  try {
    const token = await provider.accessToken("bench-reader");
    const basic = authorization(OWNER);
    const bearer = `Bearer ${token}`;
    const put = await fetch(`${server.url}/v1/articles/w1-record`, {
      method: "PUT",
      headers: { Authorization: basic, "Content-Type": "application/json" },
      body: JSON.stringify({ data: recordData(1), permissions: { read: ["oidc:bench-reader"] } }),
    });
    if (put.status !== 201 && put.status !== 200) throw new Error(`set-up: ${put.status}`);
    for (const auth of [basic, bearer]) {
      const check = await fetch(`${server.url}/v1/articles/w1-record`, { headers: { Authorization: auth } });
      if (check.status !== 200) throw new Error(`check with ${auth.slice(0, 6)}: ${check.status}`);
    }
    const figure = (label: string, auth: string) => ({
      label,
      connections,
      requests: [{ method: "GET" as const, path: "/v1/articles/w1-record", headers: { Authorization: auth } }],
    });
    const results: Record<string, Measurement[]> = { basic: [], bearer: [] };
    for (let round = 0; round < rounds; round += 1) {
      for (const [name, auth] of round % 2 === 0
        ? ([
            ["basic", basic],
            ["bearer", bearer],
          ] as const)
        : ([
            ["bearer", bearer],
            ["basic", basic],
          ] as const)) {
        const m = await measure(server, "memory", figure(`W1 ${name}`, auth), load);
        if (m.non2xx > 0 || m.errors > 0) throw new Error(`${name}: ${m.non2xx} non-2xx, ${m.errors} errors`);
        results[name]?.push(m);
        console.log(`round ${round + 1} W1 ${name.padEnd(6)} ${Math.round(m.requestsPerSecond)} req/s  p50 ${m.p50} ms  p99 ${m.p99} ms`);
      }
    }
    const basicRps = median((results.basic ?? []).map((m) => m.requestsPerSecond));
    const bearerRps = median((results.bearer ?? []).map((m) => m.requestsPerSecond));
    console.log(`median W1 Basic Auth ${Math.round(basicRps)} req/s, bearer JWT ${Math.round(bearerRps)} req/s`);
    const pairs = (results.basic ?? []).map((m, i) => (results.bearer?.[i]?.requestsPerSecond ?? 0) / m.requestsPerSecond);
    console.log(
      `bearer / basic = ${(bearerRps / basicRps).toFixed(3)} of medians, ${median(pairs).toFixed(3)} median of pairs (target >= 0.9)`,
    );
    console.log(`JWKS fetches by the server: ${provider.count("/jwks")}`);
    await authStep(provider, token);
  } finally {
    await server.stop();
    await provider.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
