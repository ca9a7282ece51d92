/**
 * Differential test: random sequences of every PermissionStore operation run against each backend,
 * every answer compared with the first backend's (memory, the reference). Small alphabets make
 * collisions, wildcards and look-alike ids (`_`, `%`, `|`) frequent. To add a backend, add a line to
 * BACKENDS. A backend's PrincipalsWithCheck capability (PostgreSQL) answers `principalsAndCheck`;
 * the others compose it from userPrincipals and checkPermission, so the capability is compared
 * with that composition.
 */
import { expect } from "chai";
import fc from "fast-check";
import { MemoryPermissionStore } from "../../src/adapters/memory/memory-permission-store.js";
import { PostgresDatabase } from "../../src/adapters/postgres/postgres-database.js";
import { PostgresPermissionStore } from "../../src/adapters/postgres/postgres-permission-store.js";
import { RedisPermissionStore } from "../../src/adapters/redis/redis-permission-store.js";
import type { PermissionStore } from "../../src/application/ports/permission-store.js";
import type { PrincipalsWithCheck } from "../../src/application/ports/principals-with-check.js";
import { defaultBoundPermissions, type BoundPermissionsFn } from "../../src/domain/permissions.js";
import type { Harness } from "../support/harness.js";
import { databaseUrl, ensureDatabase } from "../support/postgres.js";
import { REDIS_URL, requireService, underCi } from "../support/services.js";

interface Backend {
  name: string;
  /** A service the backend needs; the suite skips (or fails under CI) without it. */
  service?: "redis" | "postgresql";
  open(): Promise<Harness<PermissionStore>>;
}

const RUN = `tessera-test:${process.pid}-${Date.now().toString(36)}:diff:`;

function harnessOf(port: PermissionStore): Harness<PermissionStore> {
  return { port, reset: () => port.flush(), close: () => port.close() };
}

const DIFFERENTIAL_DATABASE = "tessera_differential_test";
/** Low, so that the small alphabet's chains of nested groups often meet the bound. */
const GROUP_MAX_DEPTH = 2;

async function openPostgres(): Promise<Harness<PermissionStore>> {
  await ensureDatabase(DIFFERENTIAL_DATABASE);
  const database = new PostgresDatabase({ url: databaseUrl(DIFFERENTIAL_DATABASE), poolSize: 4 });
  await database.migrate();
  const port = new PostgresPermissionStore(database, GROUP_MAX_DEPTH);
  return { port, reset: () => port.flush(), close: () => database.close() };
}

const BACKENDS: Backend[] = [
  { name: "memory", open: () => Promise.resolve(harnessOf(new MemoryPermissionStore(GROUP_MAX_DEPTH))) },
  {
    name: "redis",
    service: "redis",
    open: () => Promise.resolve(harnessOf(new RedisPermissionStore({ url: REDIS_URL, prefix: RUN, poolSize: 4 }, GROUP_MAX_DEPTH))),
  },
  { name: "postgresql", service: "postgresql", open: openPostgres },
];

const CI = underCi();
/** Operations to run at least: 10,000 on CI, fewer locally to keep `npm test` fast. */
const TARGET_OPERATIONS = CI ? 10_000 : 2_000;
const MIN_LENGTH = 40;

const OBJECTS = ["/a", "/a/1", "/a/2", "/a/1/x", "/a_/1", "/a%/1", "/ab/1", "/b", "/b/1", "/b|c/1", ""];
const PATTERNS = [...OBJECTS, "*", "/a/*", "/a*", "*1", "/*/1", "/a_/*", "/b/*", "/%*", "*x*", "/a/*/x", "*|*"];
const PERMISSIONS = ["read", "write", "create", "record:create"];
const PRINCIPALS = ["alice", "bob", "team", "system.Everyone", "system.Authenticated", "a|b", "x\\y"];
// Principals among the users: groups holding groups (nesting, cycles) are drawn too.
const USERS = ["alice", "bob", "system.Authenticated", "u:1", "team", "a|b"];

const writeImpliesRead: BoundPermissionsFn = (objectId, permission) =>
  permission === "read"
    ? [
        { objectId, permission },
        { objectId, permission: "write" },
      ]
    : [{ objectId, permission }];

const BOUND: Record<string, BoundPermissionsFn | undefined> = {
  none: undefined,
  default: defaultBoundPermissions,
  writeImpliesRead,
  empty: () => [],
};

const object = fc.constantFrom(...OBJECTS);
const pattern = fc.constantFrom(...PATTERNS);
const permission = fc.constantFrom(...PERMISSIONS);
const principal = fc.constantFrom(...PRINCIPALS);
const user = fc.constantFrom(...USERS);
const bound = fc.constantFrom(...Object.keys(BOUND));
const principals = fc.array(principal, { maxLength: 4 });

/** One operation as plain data, so fast-check can print and shrink it. */
const operation = fc.oneof(
  { arbitrary: fc.tuple(fc.constant("addUserPrincipal" as const), user, principal), weight: 3 },
  { arbitrary: fc.tuple(fc.constant("removeUserPrincipal" as const), user, principal), weight: 2 },
  { arbitrary: fc.tuple(fc.constant("removePrincipal" as const), principal), weight: 1 },
  { arbitrary: fc.tuple(fc.constant("userPrincipals" as const), user, fc.array(principal, { maxLength: 2 })), weight: 3 },
  { arbitrary: fc.tuple(fc.constant("membersOf" as const), principal), weight: 2 },
  { arbitrary: fc.tuple(fc.constant("directPrincipals" as const), fc.array(user, { maxLength: 3 })), weight: 1 },
  { arbitrary: fc.tuple(fc.constant("addPrincipalToAce" as const), object, permission, principal), weight: 8 },
  { arbitrary: fc.tuple(fc.constant("removePrincipalFromAce" as const), object, permission, principal), weight: 3 },
  { arbitrary: fc.tuple(fc.constant("objectPermissionPrincipals" as const), object, permission), weight: 2 },
  {
    arbitrary: fc.tuple(
      fc.constant("principalsAccessibleObjects" as const),
      principals,
      permission,
      fc.option(pattern, { nil: undefined }),
      bound,
    ),
    weight: 6,
  },
  { arbitrary: fc.tuple(fc.constant("objectPermissionAuthorizedPrincipals" as const), object, permission, bound), weight: 3 },
  { arbitrary: fc.tuple(fc.constant("checkPermission" as const), object, permission, principals, bound), weight: 5 },
  { arbitrary: fc.tuple(fc.constant("principalsAndCheck" as const), user, principals, object, permission, bound), weight: 4 },
  {
    arbitrary: fc.tuple(
      fc.constant("objectPermissions" as const),
      object,
      fc.option(fc.array(permission, { maxLength: 3 }), { nil: undefined }),
    ),
    weight: 3,
  },
  {
    arbitrary: fc.tuple(
      fc.constant("replaceObjectPermissions" as const),
      object,
      fc.dictionary(permission, fc.array(principal, { maxLength: 3 }), { maxKeys: 3 }),
    ),
    weight: 3,
  },
  { arbitrary: fc.tuple(fc.constant("deleteObjectPermissions" as const), fc.array(pattern, { maxLength: 3 })), weight: 2 },
  { arbitrary: fc.tuple(fc.constant("flush" as const)), weight: 1 },
);

type Operation = typeof operation extends fc.Arbitrary<infer T> ? T : never;

/** Sets as sorted arrays, ACLs as sorted entries: answers comparable with deep equality. */
type Answer = null | boolean | string[] | [string, string[]][] | { principals: string[]; allowed: boolean };

function hasPrincipalsWithCheck(store: PermissionStore): store is PermissionStore & PrincipalsWithCheck {
  return typeof (store as Partial<PrincipalsWithCheck>).principalsAndCheck === "function";
}

const sortedOf = (values: Iterable<string>): string[] => [...values].sort();

async function apply(store: PermissionStore, op: Operation): Promise<Answer> {
  switch (op[0]) {
    case "addUserPrincipal":
      return store.addUserPrincipal(op[1], op[2]).then(() => null);
    case "removeUserPrincipal":
      return store.removeUserPrincipal(op[1], op[2]).then(() => null);
    case "removePrincipal":
      return store.removePrincipal(op[1]).then(() => null);
    case "userPrincipals":
      return sortedOf(await store.userPrincipals(op[1], op[2]));
    case "membersOf":
      return sortedOf(await store.membersOf(op[1]));
    case "directPrincipals":
      return [...(await store.directPrincipals(op[1]))]
        .map(([id, held]): [string, string[]] => [id, sortedOf(held)])
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    case "addPrincipalToAce":
      return store.addPrincipalToAce(op[1], op[2], op[3]).then(() => null);
    case "removePrincipalFromAce":
      return store.removePrincipalFromAce(op[1], op[2], op[3]).then(() => null);
    case "objectPermissionPrincipals":
      return sortedOf(await store.objectPermissionPrincipals(op[1], op[2]));
    case "principalsAccessibleObjects":
      return sortedOf(await store.principalsAccessibleObjects(op[1], op[2], op[3], BOUND[op[4]]));
    case "objectPermissionAuthorizedPrincipals":
      return sortedOf(await store.objectPermissionAuthorizedPrincipals(op[1], op[2], BOUND[op[3]]));
    case "checkPermission":
      return store.checkPermission(op[1], op[2], op[3], BOUND[op[4]]);
    case "principalsAndCheck": {
      const [, userId, known, objectId, perm, boundName] = op;
      if (hasPrincipalsWithCheck(store)) {
        const read = await store.principalsAndCheck(userId, known, objectId, perm, BOUND[boundName]);
        return { principals: sortedOf(read.principals), allowed: read.allowed };
      }
      const extra = await store.userPrincipals(userId);
      const allowed = await store.checkPermission(objectId, perm, [...new Set([...known, ...extra])], BOUND[boundName]);
      return { principals: sortedOf(extra), allowed };
    }
    case "objectPermissions": {
      const acl = await store.objectPermissions(op[1], op[2]);
      return Object.entries(acl)
        .map(([perm, holders]): [string, string[]] => [perm, sortedOf(holders)])
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    }
    case "replaceObjectPermissions":
      return store.replaceObjectPermissions(op[1], op[2]).then(() => null);
    case "deleteObjectPermissions":
      return store.deleteObjectPermissions(...op[1]).then(() => null);
    case "flush":
      return store.flush().then(() => null);
  }
}

describe("PermissionStore differential test", function () {
  this.timeout(CI ? 300_000 : 120_000);
  for (const service of new Set(BACKENDS.flatMap((b) => (b.service ? [b.service] : [])))) requireService(service);

  const harnesses: Harness<PermissionStore>[] = [];
  before(async () => {
    for (const backend of BACKENDS) harnesses.push(await backend.open());
  });
  after(async () => {
    for (const h of harnesses) {
      await h.reset();
      await h.close();
    }
  });

  it(`gives the same answers on ${BACKENDS.map((b) => b.name).join(", ")} (at least ${TARGET_OPERATIONS} operations)`, async () => {
    let operations = 0;
    let divergences = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(operation, { minLength: MIN_LENGTH, maxLength: 2 * MIN_LENGTH }), async (ops) => {
        for (const h of harnesses) await h.reset();
        for (const [step, op] of ops.entries()) {
          operations++;
          const answers = await Promise.all(harnesses.map((h) => apply(h.port, op)));
          for (const [index, answer] of answers.entries()) {
            if (JSON.stringify(answer) === JSON.stringify(answers[0])) continue;
            divergences++;
            throw new Error(
              `${BACKENDS[index]!.name} diverges from ${BACKENDS[0]!.name} at step ${step} ${JSON.stringify(op)}: ` +
                `${JSON.stringify(answer)} vs ${JSON.stringify(answers[0])}`,
            );
          }
        }
      }),
      { numRuns: Math.ceil(TARGET_OPERATIONS / MIN_LENGTH) },
    );
    console.log(`      differential: ${operations} operations on ${BACKENDS.length} backends, ${divergences} divergences`);
    expect(operations).to.be.at.least(TARGET_OPERATIONS);
  });
});
