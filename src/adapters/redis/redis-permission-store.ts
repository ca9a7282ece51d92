/**
 * PermissionStore on Redis (ioredis). Unlike Kinto's Redis backend, no query scans the keyspace:
 * reverse indexes (see redis-permission-scripts.ts) are updated in the same Lua step as the ACEs,
 * so checks are one pipeline of SMISMEMBER and listings one pipeline of SUNION per bound pair.
 */
import {
  DEFAULT_GROUP_MAX_DEPTH,
  type Expandable,
  type GroupMember,
  type ObjectPermissions,
  type PermissionStore,
} from "../../application/ports/permission-store.js";
import { boundPairs, type BoundPermission, type BoundPermissionsFn } from "../../domain/permissions.js";
import { AUTHENTICATED } from "../../domain/principals.js";
import { compareCodePoints, reachedWithin, shortestParents } from "../../application/nested-principals.js";
import { walkMembersPage } from "../../application/access/member-walk.js";
import { globEscape, RedisPool, repliesOf, runScript, type RedisConnectionOptions, unlinkByPrefix } from "./redis-connection.js";
import {
  ADD_ACE,
  DELETE_OBJECTS,
  indexDir,
  luaPattern,
  OBJECT_ACL,
  permissionKey,
  REMOVE_ACE,
  REMOVE_PRINCIPAL,
  REMOVE_USER_PRINCIPAL,
  REPLACE_ACL,
  type KeyKind,
} from "./redis-permission-scripts.js";
import { wildcardMatcher } from "../../domain/wildcard.js";

export const DEFAULT_PERMISSION_PREFIX = "tessera:perm:";

/** Objects deleted per Lua call: a wildcard delete of a big collection must not block Redis for long. */
export const DELETE_BATCH = 500;

function uniquePairs(pairs: readonly BoundPermission[]): BoundPermission[] {
  const seen = new Map<string, BoundPermission>();
  for (const pair of pairs) seen.set(JSON.stringify([pair.objectId, pair.permission]), pair);
  return [...seen.values()];
}

export class RedisPermissionStore implements PermissionStore {
  private readonly pool: RedisPool;

  /** `groupMaxDepth`: levels of nested groups followed (`group_max_depth`). */
  constructor(
    options: RedisConnectionOptions,
    private readonly groupMaxDepth = DEFAULT_GROUP_MAX_DEPTH,
  ) {
    this.pool = new RedisPool(options, "permission", DEFAULT_PERMISSION_PREFIX);
  }

  get prefix(): string {
    return this.pool.prefix;
  }

  async initializeSchema(): Promise<void> {
    // Nothing to create: sets appear with their first member. Still proves the server answers.
    await this.pool.run((client) => client.ping());
    await this.indexHoldersInOrder();
  }

  /**
   * Data written before the ordered holders (pz:) and the groups (g:) existed gets them from the
   * holder sets: idempotent, one SCAN of the pu: keys; `tessera migrate` runs it.
   */
  private async indexHoldersInOrder(): Promise<void> {
    const prefix = this.key("pu", "");
    await this.pool.run(async (client) => {
      let cursor = "0";
      do {
        const [next, keys] = await client.scan(cursor, "MATCH", `${globEscape(prefix)}*`, "COUNT", 500);
        cursor = next;
        for (const key of keys) {
          const principal = key.slice(prefix.length).replace(/\\(.)/g, "$1");
          const holders = await client.smembers(key);
          if (holders.length === 0) continue;
          const pipeline = client.pipeline().sadd(this.key("g"), principal);
          for (let i = 0; i < holders.length; i += 1000)
            pipeline.zadd(this.key("pz", principal), ...holders.slice(i, i + 1000).flatMap((h) => [0, h]));
          repliesOf(await pipeline.exec());
        }
      } while (cursor !== "0");
    });
  }

  async flush(): Promise<void> {
    // Admin path only: SCAN + UNLINK under our prefix, never FLUSHDB (other data may share the DB).
    await this.pool.run((client) => unlinkByPrefix(client, this.prefix));
  }

  async addUserPrincipal(userId: string, principal: string): Promise<void> {
    await this.pool.run(async (client) =>
      repliesOf(
        await client
          .multi()
          .sadd(this.key("u", userId), principal)
          .sadd(this.key("pu", principal), userId)
          .zadd(this.key("pz", principal), 0, userId)
          .sadd(this.key("g"), principal)
          .exec(),
      ),
    );
  }

  async removeUserPrincipal(userId: string, principal: string): Promise<void> {
    await this.pool.run((client) => runScript(client, REMOVE_USER_PRINCIPAL, [this.prefix, userId, principal]));
  }

  async removePrincipal(principal: string): Promise<void> {
    await this.pool.run((client) => runScript(client, REMOVE_PRINCIPAL, [this.prefix, principal]));
  }

  /** One pipeline of SMEMBERS per level of nesting, at most `groupMaxDepth`. */
  async userPrincipals(userId: string, held: readonly string[] = []): Promise<Set<string>> {
    return reachedWithin([userId, AUTHENTICATED], this.groupMaxDepth, (ids) => this.setsOf("u", ids), held);
  }

  async directPrincipals(ids: readonly string[]): Promise<Map<string, Set<string>>> {
    const unique = [...new Set(ids)];
    const sets = await this.setsOf("u", unique);
    return new Map(unique.map((id, index) => [id, new Set(sets[index])]));
  }

  /** Walks the reverse sets (pu:), one pipeline per level. */
  async membersOf(principal: string): Promise<Set<string>> {
    const members = await reachedWithin([principal], this.groupMaxDepth, (ids) => this.setsOf("pu", ids));
    members.delete(principal);
    return members;
  }

  /** One pipeline per level. */
  async principalParents(ids: readonly string[]): Promise<Map<string, string>> {
    return shortestParents(ids, this.groupMaxDepth, (level) => this.setsOf("u", level));
  }

  /** One pipeline per level of nesting (subgroupsOf), one for the page (holdersPage): at most `groupMaxDepth`. */
  async membersPage(
    principals: readonly string[],
    after: string | undefined,
    limit: number,
    expandable?: Expandable,
  ): Promise<GroupMember[]> {
    return walkMembersPage(this, principals, after, limit, this.groupMaxDepth, expandable);
  }

  /** SINTER of each id's holders with the groups: Redis walks the smaller of the two sets. */
  async subgroupsOf(ids: readonly string[]): Promise<Map<string, Set<string>>> {
    const unique = [...new Set(ids)];
    if (unique.length === 0) return new Map();
    const replies = await this.pool.run(async (client) => {
      const pipeline = client.pipeline();
      for (const id of unique) pipeline.sinter(this.key("pu", id), this.key("g"));
      return repliesOf(await pipeline.exec()) as string[][];
    });
    return new Map(unique.map((id, index) => [id, new Set(replies[index])]));
  }

  /** A ZRANGE BYLEX of at most `limit` after the cursor per id, in one pipeline, merged here. */
  async holdersPage(ids: readonly string[], after: string | undefined, limit: number): Promise<GroupMember[]> {
    const unique = [...new Set(ids)];
    if (unique.length === 0 || limit <= 0) return [];
    const replies = await this.pool.run(async (client) => {
      const pipeline = client.pipeline();
      for (const id of unique) pipeline.zrangebylex(this.key("pz", id), after === undefined ? "-" : `(${after}`, "+", "LIMIT", 0, limit);
      return repliesOf(await pipeline.exec()) as string[][];
    });
    const through = new Map<string, string[]>();
    unique.forEach((id, index) => {
      for (const holder of replies[index] ?? []) {
        const groups = through.get(holder);
        if (groups) groups.push(id);
        else through.set(holder, [id]);
      }
    });
    return [...through.keys()]
      .sort(compareCodePoints)
      .slice(0, limit)
      .map((holder) => ({ id: holder, through: (through.get(holder) ?? []).sort(compareCodePoints) }));
  }

  /** The members of the `kind` set of each id, in one pipeline. */
  private async setsOf(kind: "u" | "pu", ids: readonly string[]): Promise<string[][]> {
    if (ids.length === 0) return [];
    return this.pool.run(async (client) => {
      const pipeline = client.pipeline();
      for (const id of ids) pipeline.smembers(this.key(kind, id));
      return repliesOf(await pipeline.exec()) as string[][];
    });
  }

  async addPrincipalToAce(objectId: string, permission: string, principal: string): Promise<void> {
    await this.pool.run((client) => runScript(client, ADD_ACE, [this.prefix, objectId, permission, principal]));
  }

  async removePrincipalFromAce(objectId: string, permission: string, principal: string): Promise<void> {
    await this.pool.run((client) => runScript(client, REMOVE_ACE, [this.prefix, objectId, permission, principal]));
  }

  async objectPermissionPrincipals(objectId: string, permission: string): Promise<Set<string>> {
    return this.pool.run(async (client) => new Set(await client.smembers(this.key("a", objectId, permission))));
  }

  async principalsAccessibleObjects(
    principals: readonly string[],
    permission: string,
    objectIdMatch?: string,
    getBoundPermissions?: BoundPermissionsFn,
  ): Promise<Set<string>> {
    const result = new Set<string>();
    const pairs = uniquePairs(boundPairs(objectIdMatch ?? "*", permission, getBoundPermissions));
    if (principals.length === 0 || pairs.length === 0) return result;
    // One round trip: an exact pair is a membership test on its ACE; a wildcard pair reads the
    // per-principal index of its directory, then the pattern filters it here.
    const replies = await this.pool.run(async (client) => {
      const pipeline = client.pipeline();
      for (const pair of pairs) {
        if (pair.objectId.includes("*")) {
          const dir = indexDir(pair.objectId);
          pipeline.sunion(...principals.map((p) => this.key("i", p, pair.permission, dir)));
        } else {
          pipeline.smismember(this.key("a", pair.objectId, pair.permission), ...principals);
        }
      }
      return repliesOf(await pipeline.exec());
    });
    pairs.forEach((pair, index) => {
      const reply = replies[index] as (string | number)[];
      if (!pair.objectId.includes("*")) {
        if (reply.some((member) => Number(member) === 1)) result.add(pair.objectId);
        return;
      }
      const matches = wildcardMatcher(pair.objectId, { ignoreCase: false });
      for (const objectId of reply as string[]) if (matches(objectId)) result.add(objectId);
    });
    return result;
  }

  async objectPermissionAuthorizedPrincipals(
    objectId: string,
    permission: string,
    getBoundPermissions?: BoundPermissionsFn,
  ): Promise<Set<string>> {
    const pairs = uniquePairs(boundPairs(objectId, permission, getBoundPermissions));
    if (pairs.length === 0) return new Set();
    return this.pool.run(
      async (client) => new Set(await client.sunion(...pairs.map((pair) => this.key("a", pair.objectId, pair.permission)))),
    );
  }

  async checkPermission(
    objectId: string,
    permission: string,
    principals: readonly string[],
    getBoundPermissions?: BoundPermissionsFn,
  ): Promise<boolean> {
    const pairs = uniquePairs(boundPairs(objectId, permission, getBoundPermissions));
    if (principals.length === 0 || pairs.length === 0) return false;
    const replies = await this.pool.run(async (client) => {
      const pipeline = client.pipeline();
      for (const pair of pairs) pipeline.smismember(this.key("a", pair.objectId, pair.permission), ...principals);
      return repliesOf(await pipeline.exec());
    });
    return replies.some((reply) => (reply as (string | number)[]).some((member) => Number(member) === 1));
  }

  async objectPermissions(objectId: string, permissions?: readonly string[]): Promise<ObjectPermissions> {
    const result: ObjectPermissions = {};
    if (permissions) {
      const wanted = [...new Set(permissions)];
      if (wanted.length === 0) return result;
      // MULTI rather than a plain pipeline: one consistent snapshot of the ACL, still one round trip.
      const replies = await this.pool.run(async (client) => {
        const transaction = client.multi();
        for (const perm of wanted) transaction.smembers(this.key("a", objectId, perm));
        return repliesOf(await transaction.exec());
      });
      wanted.forEach((perm, index) => {
        const principals = replies[index] as string[];
        if (principals.length > 0) result[perm] = new Set(principals);
      });
      return result;
    }
    const flat = (await this.pool.run((client) => runScript(client, OBJECT_ACL, [this.prefix, objectId]))) as (string | string[])[];
    for (let i = 0; i < flat.length; i += 2) {
      const principals = flat[i + 1] as string[];
      if (principals.length > 0) result[flat[i] as string] = new Set(principals);
    }
    return result;
  }

  async manyObjectPermissions(objectIds: readonly string[], permissions: readonly string[]): Promise<Map<string, ObjectPermissions>> {
    const result = new Map<string, ObjectPermissions>(objectIds.map((id) => [id, {}]));
    const wanted = [...new Set(permissions)];
    if (result.size === 0 || wanted.length === 0) return result;
    const pairs = [...result.keys()].flatMap((objectId) => wanted.map((permission) => ({ objectId, permission })));
    // One MULTI for all: every ACL from one snapshot, one round trip.
    const replies = await this.pool.run(async (client) => {
      const transaction = client.multi();
      for (const { objectId, permission } of pairs) transaction.smembers(this.key("a", objectId, permission));
      return repliesOf(await transaction.exec());
    });
    pairs.forEach(({ objectId, permission }, index) => {
      const principals = replies[index] as string[];
      const acl = result.get(objectId);
      if (acl && principals.length > 0) acl[permission] = new Set(principals);
    });
    return result;
  }

  async replaceObjectPermissions(objectId: string, permissions: Readonly<Record<string, Iterable<string>>>): Promise<void> {
    const entries = Object.entries(permissions);
    if (entries.length === 0) return;
    const args = [this.prefix, objectId];
    for (const [perm, principals] of entries) {
      const unique = [...new Set(principals)];
      args.push(perm, String(unique.length), ...unique);
    }
    await this.pool.run((client) => runScript(client, REPLACE_ACL, args));
  }

  async deleteObjectPermissions(...objectIds: string[]): Promise<void> {
    if (objectIds.length === 0) return;
    const args = [this.prefix, String(DELETE_BATCH)];
    for (const id of objectIds) args.push(id, indexDir(id), id.includes("*") ? luaPattern(id) : "");
    // Each call is atomic and bounded; repeat until a call finds less than a full batch.
    await this.pool.run(async (client) => {
      while (Number(await runScript(client, DELETE_OBJECTS, args)) >= DELETE_BATCH);
    });
  }

  async heartbeat(): Promise<boolean> {
    try {
      await this.addUserPrincipal("__heartbeat__", "alive");
      await this.removeUserPrincipal("__heartbeat__", "alive");
      return true;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    await this.pool.close();
  }

  private key(kind: KeyKind, ...parts: string[]): string {
    return permissionKey(this.prefix, kind, ...parts);
  }
}
