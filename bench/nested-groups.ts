/**
 * W4N: W4's listing read by a caller who holds its 100 shared records only through nested groups
 * (issue 26): 100 groups on 3 levels, 34 held directly, each in one of 33 level-2 groups, each of
 * those in one of 33 level-3 groups, and every shared record readable by one level-3 group. The
 * caller's principals are the closure of its memberships (about 100), resolved once per request.
 * Seeded after W4's own data, on PostgreSQL in SQL, on Redis through the permission adapter; the
 * memory backend has no way in from outside the server, so W4N skips it.
 */
import { RedisPermissionStore } from "../src/adapters/redis/redis-permission-store.js";
import { listCollection, principalOf, recordId, sharedNumbers, withClient } from "./seed.js";

export const NESTED_READER = "nested:bench-password";

const LEVEL_ONE = 34;
const UPPER = 33;
const group = (level: string, i: number) => `group:bench-${level}${i}`;

/** [member, group] links: the reader in the level-1 groups, level 1 in level 2, level 2 in level 3. */
function links(): [string, string][] {
  const reader = principalOf(NESTED_READER);
  const result: [string, string][] = [];
  for (let i = 1; i <= LEVEL_ONE; i++) result.push([reader, group("l1-", i)], [group("l1-", i), group("l2-", ((i - 1) % UPPER) + 1)]);
  for (let i = 1; i <= UPPER; i++) result.push([group("l2-", i), group("l3-", i)]);
  return result;
}

/** The read ACEs of the size-N collection's shared records, each to one level-3 group. */
function groupGrants(n: number): [string, string][] {
  return sharedNumbers(n).map((k, i) => [`/${listCollection(n)}/${recordId(k)}`, group("l3-", (i % UPPER) + 1)]);
}

/** The links and grants in the PostgreSQL permission tables (replaced each run: 200 rows). */
export async function seedNestedSql(url: string, n: number): Promise<void> {
  await withClient(url, async (client) => {
    const all = links();
    await client.query("DELETE FROM user_principals WHERE user_id = ANY($1::text[])", [[...new Set(all.map(([member]) => member))]]);
    await client.query("INSERT INTO user_principals (user_id, principal) SELECT * FROM unnest($1::text[], $2::text[])", [
      all.map(([member]) => member),
      all.map(([, g]) => g),
    ]);
    const grants = groupGrants(n);
    await client.query(
      `INSERT INTO access_control_entries (object_id, permission, principal)
       SELECT o, 'read', p FROM unnest($1::text[], $2::text[]) AS g (o, p) ON CONFLICT DO NOTHING`,
      [grants.map(([objectId]) => objectId), grants.map(([, g]) => g)],
    );
  });
}

/** The same through the Redis permission adapter (idempotent). */
export async function seedNestedRedis(redisUrl: string, n: number): Promise<void> {
  const store = new RedisPermissionStore({ url: redisUrl, prefix: "tessera:permission:", poolSize: 8, maxBacklog: -1 });
  try {
    for (const [member, g] of links()) await store.addUserPrincipal(member, g);
    for (const [objectId, g] of groupGrants(n)) await store.addPrincipalToAce(objectId, "read", g);
  } finally {
    await store.close();
  }
}
