/**
 * Group commit per scope (see docs/adr/0010-group-commit-per-collection.md): the writes to one
 * collection that arrive while its transaction is in flight join the next one. A group locks the
 * scope's counter row once, hands out strictly increasing timestamps in memory, writes the
 * counter once at the end and commits once (one fsync). Each write keeps its own outcome.
 */
import pg from "pg";
import type { Scope } from "../../application/ports/record-store.js";
import { GroupClock } from "./group-clock.js";
import type { PostgresDatabase, Statement } from "./postgres-database.js";
import { unstorableText } from "./postgres-errors.js";
import { NOW_MS } from "./sql-clock.js";

/**
 * At most this many writes per group: each unit of work in a group is a savepoint (a
 * subtransaction), and PostgreSQL caches only 64 of them per transaction before every other
 * session's snapshots get slower.
 */
const MAX_GROUP_SIZE = 48;

interface CounterRow extends Record<string, unknown> {
  readonly last_modified: string;
  readonly now: string;
}

/** The counter row's lock, for a scope named by two SQL expressions (parameters or literals). */
function lockCounterText(collection: string, parentId: string): string {
  return `SELECT last_modified, ${NOW_MS} AS now FROM timestamps WHERE collection = ${collection} AND parent_id = ${parentId} FOR UPDATE`;
}

function storeCounterText(counter: string, collection: string, parentId: string): string {
  return `UPDATE timestamps SET last_modified = ${counter} WHERE collection = ${collection} AND parent_id = ${parentId}`;
}

const LOCK_COUNTER: Statement = { name: "tessera_group_lock_counter", text: lockCounterText("$1", "$2") };
const STORE_COUNTER: Statement = { name: "tessera_group_store_counter", text: storeCounterText("$3", "$1", "$2") };

/** The scope's key as SQL literals (PostgreSQL text cannot hold NUL: refused as a bad string would be). */
function scopeLiterals(scope: Scope): [string, string] {
  if (scope.collection.includes("\u0000") || scope.parentId.includes("\u0000")) throw unstorableText();
  return [pg.escapeLiteral(scope.collection), pg.escapeLiteral(scope.parentId)];
}

/** LOCK_COUNTER for BEGIN's round trip. */
function lockCounterSql(scope: Scope): string {
  return lockCounterText(...scopeLiterals(scope));
}

/** STORE_COUNTER for COMMIT's round trip. */
function storeCounterSql(scope: Scope, counter: number): string {
  if (!Number.isSafeInteger(counter)) throw new Error(`a counter of ${counter} cannot be stored`);
  return storeCounterText(String(counter), ...scopeLiterals(scope));
}

const CREATE_COUNTER: Statement = {
  name: "tessera_group_create_counter",
  text: `INSERT INTO timestamps (collection, parent_id, last_modified) VALUES ($1, $2, ${NOW_MS}) ON CONFLICT DO NOTHING RETURNING last_modified`,
};

/** What happened to one write: its value, or its own error (a business outcome or a failure). */
export type Outcome<R> = { ok: true; value: R } | { ok: false; error: unknown };

/**
 * Writes of one kind that a group sends as one statement: a run of consecutive members with the
 * same batch statement becomes one round trip instead of one per write.
 */
export interface BatchStatement<I, R> {
  /** Whether `item` may join `items` in one statement (e.g. never the same record twice). */
  admits(items: readonly I[], item: I): boolean;
  /**
   * Writes the items in order, stamped by `clock` (calling `wrote` for what it wrote), and returns
   * one outcome per item. Business outcomes come back as outcomes; a raise rolls the group back,
   * which is then replayed with each item alone, so that a raise fails only its own write.
   */
  run(clock: GroupClock, items: readonly I[]): Promise<Outcome<R>[]>;
}

interface Batched {
  readonly statement: BatchStatement<unknown, unknown>;
  readonly item: unknown;
}

/** A write of the group: its own work, or an item of a batch statement (see runMembers). */
interface Member {
  /** Runs in the group's transaction; `isolated` members may run under a savepoint. */
  readonly work: ((clock: GroupClock) => Promise<unknown>) | Batched;
  readonly isolated: boolean;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

type MemberOutcome = Outcome<unknown>;

/** A batch statement raised: the transaction must roll back, and its items be replayed one by one. */
class BatchAborted extends Error {
  constructor(readonly error: unknown) {
    super("a batched statement aborted its transaction");
  }
}

/** A member threw outside any savepoint: the whole transaction must roll back. */
class MemberAborted extends Error {
  constructor(
    readonly member: Member,
    readonly error: unknown,
  ) {
    super("a grouped write aborted its transaction");
  }
}

interface ScopeQueue {
  running: boolean;
  readonly waiting: Member[];
}

const registry = new WeakMap<PostgresDatabase, GroupCommit>();

/** The one group committer of a database, shared by its record store and unit of work. */
export function groupCommitOf(database: PostgresDatabase): GroupCommit {
  let groups = registry.get(database);
  if (!groups) {
    groups = new GroupCommit(database);
    registry.set(database, groups);
  }
  return groups;
}

function scopeKey(scope: Scope): string {
  return `${scope.collection}\u0000${scope.parentId}`;
}

export class GroupCommit {
  private readonly queues = new Map<string, ScopeQueue>();

  constructor(private readonly database: PostgresDatabase) {}

  /**
   * A single write whose statement never raises on a business outcome (it returns what happened
   * instead); resolves after its group committed. If it does raise, the group is rolled back and
   * replayed without it.
   */
  write<T>(scope: Scope, work: (clock: GroupClock) => Promise<T>): Promise<T> {
    return this.enqueue(scope, work, false);
  }

  /**
   * A unit of work (record + ACL): when it fails, its writes are undone and only its own. It runs
   * handed the group's clock with the transaction (see writeModeOf), which its writes of the scope stamp with.
   */
  unitOfWork<T>(scope: Scope, work: () => Promise<T>): Promise<T> {
    return this.enqueue(scope, (clock) => this.database.within({ clock }, work), true);
  }

  /**
   * A write that may share one statement with the writes of the same statement next to it in
   * its group; each keeps its own outcome (resolves, or rejects with its own error).
   */
  batch<I, R>(scope: Scope, statement: BatchStatement<I, R>, item: I): Promise<R> {
    return this.enqueue(scope, { statement, item }, false);
  }

  /**
   * A write inside a transaction that is not a group's (a batch request's): the scope's counter
   * is locked and written around it, as a group does, so `work` stamps with a clock too.
   */
  async inTransaction<T>(scope: Scope, work: (clock: GroupClock) => Promise<T>): Promise<T> {
    const clock = await this.lockCounter(scope);
    const result = await work(clock);
    clock.keep();
    const counter = clock.finalCounter();
    if (counter !== undefined) await this.run(STORE_COUNTER, [scope.collection, scope.parentId, counter]);
    return result;
  }

  private enqueue<T>(scope: Scope, work: ((clock: GroupClock) => Promise<T>) | Batched, isolated: boolean): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const key = scopeKey(scope);
      let queue = this.queues.get(key);
      if (!queue) {
        queue = { running: false, waiting: [] };
        this.queues.set(key, queue);
      }
      queue.waiting.push({ work, isolated, resolve: resolve as (value: unknown) => void, reject });
      if (!queue.running) void this.drain(key, scope, queue);
    });
  }

  /** Runs groups one after the other while writes wait; the scope's queue is dropped when idle. */
  private async drain(key: string, scope: Scope, queue: ScopeQueue): Promise<void> {
    queue.running = true;
    while (queue.waiting.length > 0) {
      const members = queue.waiting.splice(0, MAX_GROUP_SIZE);
      await this.runGroup(scope, members);
    }
    queue.running = false;
    this.queues.delete(key);
  }

  /**
   * One transaction for the members. Optimistic first: no savepoints, so a member that throws
   * (a unit of work refused after writing its ACL, a statement that raised) rolls the whole group
   * back; it gets its error and the others are replayed, units of work now under savepoints.
   */
  private async runGroup(scope: Scope, members: Member[]): Promise<void> {
    let pending = members;
    let savepoints = false;
    let batching = true;
    // Bounded: every replay leaves out the member that aborted the previous attempt, or stops
    // batching (once), after which a raising item is a member that aborted.
    while (pending.length > 0) {
      try {
        let counter: number | undefined;
        const outcomes = await this.database.transaction<MemberOutcome[], CounterRow>(
          "storage",
          async (locked) => {
            const ran = await this.runMembers(scope, pending, savepoints, batching, locked);
            counter = ran.counter;
            return ran.outcomes;
          },
          // The counter row's lock and its final value share the round trips of BEGIN and COMMIT.
          { afterBegin: lockCounterSql(scope), beforeCommit: () => (counter === undefined ? undefined : storeCounterSql(scope, counter)) },
        );
        pending.forEach((member, i) => {
          const outcome = outcomes[i];
          if (outcome?.ok) member.resolve(outcome.value);
          else member.reject(outcome?.error);
        });
        return;
      } catch (error) {
        if (error instanceof MemberAborted) {
          error.member.reject(error.error);
          pending = pending.filter((member) => member !== error.member);
          savepoints = true;
        } else if (error instanceof BatchAborted && batching) {
          batching = false;
        } else {
          for (const member of pending) member.reject(error);
          return;
        }
      }
    }
  }

  /** The members' outcomes, and the counter's value to store before COMMIT (none when nothing was written). */
  private async runMembers(
    scope: Scope,
    members: readonly Member[],
    savepoints: boolean,
    batching: boolean,
    locked: readonly CounterRow[],
  ): Promise<{ outcomes: MemberOutcome[]; counter: number | undefined }> {
    const clock = await this.lockCounter(scope, locked);
    const outcomes: MemberOutcome[] = [];
    for (let i = 0; i < members.length;) {
      // After a failed batch, each item runs alone: a raise is then its own.
      const run = batchRun(members, i, batching ? MAX_GROUP_SIZE : 1);
      if (run.length > 0) {
        outcomes.push(...(await this.runBatch(clock, run)));
        i += run.length;
        continue;
      }
      const member = members[i++] as Member;
      const work = member.work as (clock: GroupClock) => Promise<unknown>;
      const isolated = savepoints && member.isolated;
      if (isolated) await this.run("SAVEPOINT tessera_member");
      try {
        outcomes.push({ ok: true, value: await work(clock) });
        clock.keep();
      } catch (error) {
        clock.discard();
        if (!isolated) throw new MemberAborted(member, error);
        await this.run("ROLLBACK TO SAVEPOINT tessera_member");
        outcomes.push({ ok: false, error });
      }
    }
    return { outcomes, counter: clock.finalCounter() };
  }

  /** One statement for a run of batched members; the members' stamps count once it returned. */
  private async runBatch(clock: GroupClock, run: readonly Member[]): Promise<MemberOutcome[]> {
    try {
      const outcomes = await this.sendBatch(clock, run);
      clock.keep();
      return outcomes;
    } catch (error) {
      clock.discard();
      const [alone] = run;
      throw run.length === 1 && alone ? new MemberAborted(alone, error) : new BatchAborted(error);
    }
  }

  private async sendBatch(clock: GroupClock, run: readonly Member[]): Promise<MemberOutcome[]> {
    const batches = run.map((member) => member.work as Batched);
    const statement = batches[0]?.statement;
    if (!statement) return [];
    const outcomes = await statement.run(
      clock,
      batches.map((batched) => batched.item),
    );
    if (outcomes.length !== run.length) throw new Error(`a batch statement returned ${outcomes.length} outcomes for ${run.length} writes`);
    return outcomes;
  }

  /**
   * Locks the scope's counter row for the group (creating it on the scope's first write); `locked`:
   * the row, when the lock was already taken with BEGIN.
   */
  private async lockCounter(scope: Scope, locked?: readonly CounterRow[]): Promise<GroupClock> {
    const values = [scope.collection, scope.parentId];
    let rows = locked && locked.length > 0 ? locked : await this.run<CounterRow>(LOCK_COUNTER, values);
    let created = false;
    if (rows.length === 0) {
      // Ours when the insert returns it (the scope's first write); else another writer's.
      created = (await this.run(CREATE_COUNTER, values)).length > 0;
      rows = await this.run<CounterRow>(LOCK_COUNTER, values);
    }
    const row = rows[0];
    if (!row) throw new Error(`no timestamp row for ${scope.collection}`);
    return new GroupClock(scope, created ? undefined : Number(row.last_modified), Number(row.now));
  }

  private run<R extends Record<string, unknown>>(statement: Statement | string, values: readonly unknown[] = []): Promise<R[]> {
    return this.database.query<R>("storage", statement, values);
  }
}

/** One item through a batch statement, inside a group's or a transaction's clock: its rows, or its error raised. */
export async function runOne<I, R>(statement: BatchStatement<I, R>, clock: GroupClock, item: I): Promise<R> {
  const [outcome] = await statement.run(clock, [item]);
  if (!outcome) throw new Error("a batch statement returned no outcome");
  if (!outcome.ok) throw outcome.error;
  return outcome.value;
}

function batchedOf(member: Member | undefined): Batched | undefined {
  return member && typeof member.work !== "function" ? member.work : undefined;
}

/** The batched members from `start` that can share the first one's statement (none when it is not batched). */
function batchRun(members: readonly Member[], start: number, limit: number): Member[] {
  const first = members[start];
  const statement = batchedOf(first)?.statement;
  if (!first || !statement) return [];
  const run = [first];
  const items = [batchedOf(first)?.item];
  for (let i = start + 1; i < members.length && run.length < limit; i++) {
    const next = batchedOf(members[i]);
    if (next?.statement !== statement || !statement.admits(items, next.item)) break;
    run.push(members[i] as Member);
    items.push(next.item);
  }
  return run;
}
