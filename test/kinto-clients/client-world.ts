/**
 * One live Tessera per backend setup for the npm Kinto clients to talk to: memory, PostgreSQL
 * storage and permissions, and PostgreSQL storage with Redis permissions. Every test starts
 * from empty stores.
 */
import "fake-indexeddb/auto"; // kinto.js stores its local copy in IndexedDB: an in-memory one here
import { createRequire } from "node:module";
import type * as KintoPackage from "kinto";
import { TOKENS } from "../../src/bootstrap/tokens.js";
import { permissionBackendSetups, postgresWithRedisSetup, type BackendSetup } from "../support/backend-setups.js";
import { startTestServer, type TestServer } from "../support/http.js";
import { requireService } from "../support/services.js";
import { KintoClient, type KintoHttpClient } from "./kinto-http-module.js";

const TAG = "kinto_clients";

// kinto.js's CommonJS build, the same in the tsx and the compiled run; its `default` is the class.
type KintoClass = typeof KintoPackage.default.default;
export type OfflineKinto = InstanceType<KintoClass>;
const Kinto = (createRequire(import.meta.url)("kinto") as { default: KintoClass }).default;
let localDatabases = 0;

export const CLIENT_SETUPS: readonly BackendSetup[] = [
  ...permissionBackendSetups(TAG).filter((setup) => setup.name !== "Redis permissions"),
  postgresWithRedisSetup(TAG),
];

/** The `Authorization` header of a Basic Auth `user:password`. */
export function basicAuth(credentials: string): Record<string, string> {
  return { Authorization: `Basic ${Buffer.from(credentials).toString("base64")}` };
}

export class ClientWorld {
  private running: TestServer | undefined;

  get server(): TestServer {
    if (!this.running) throw new Error("the server starts in the suite's before hook");
    return this.running;
  }

  /** The remote the clients are given: Kinto's clients insist on the `/v1` version prefix. */
  get remote(): string {
    return `${this.server.url}/v1`;
  }

  /** A kinto-http client signed in as `credentials`. */
  http(credentials: string): KintoHttpClient {
    return new KintoClient(this.remote, { headers: basicAuth(credentials) });
  }

  /** A kinto.js device of `credentials` syncing `bucket`, with a local database of its own. */
  offline(credentials: string, bucket: string): OfflineKinto {
    localDatabases += 1;
    return new Kinto({
      remote: this.remote,
      bucket,
      headers: basicAuth(credentials),
      adapterOptions: { dbName: `kinto-clients-${process.pid}-${localDatabases}` },
    });
  }

  async start(setup: BackendSetup): Promise<void> {
    this.running = await startTestServer(await setup.settings());
    await (await this.server.running.container.getAsync(TOKENS.Migrator)).migrate();
  }

  async flush(): Promise<void> {
    await (await this.server.running.container.getAsync(TOKENS.RecordStore)).flush();
    await (await this.server.running.container.getAsync(TOKENS.PermissionStore)).flush();
  }

  async stop(): Promise<void> {
    if (!this.running) return;
    await this.flush();
    await this.running.stop();
  }
}

/** Declares `body`'s tests once per backend setup, each against its own live server. */
export function onEveryBackend(title: string, body: (world: ClientWorld) => void): void {
  for (const setup of CLIENT_SETUPS) {
    describe(`${title} [${setup.name}]`, function () {
      if (setup.service) requireService(setup.service);
      if ("alsoNeeds" in setup) requireService(setup.alsoNeeds as "postgresql");
      this.timeout(20_000);
      const world = new ClientWorld();
      before(() => world.start(setup));
      beforeEach(() => world.flush());
      after(() => world.stop());
      body(world);
    });
  }
}

/** The status a kinto-http call failed with (its ServerResponse carries the response). */
export async function failureStatus(call: Promise<unknown>): Promise<number> {
  try {
    await call;
  } catch (error) {
    return (error as { response?: { status: number } }).response?.status ?? -1;
  }
  throw new Error("the call succeeded");
}
