/**
 * The membership use case (MembershipChanges): the permission backend's change, then its access
 * journal stamps (AccessStamps), in one unit of work; announced once it has committed.
 *
 * Where the permission backend shares the unit of work's transaction (PostgreSQL for both), the
 * change and its stamps commit or roll back together. Elsewhere the change is written first and
 * the stamps after it, so that a client syncing in between holds a position below them; should the
 * stamps fail, the change is taken back (onRollback, or here where nothing rolls back), so a
 * holder keeps reading what it held and no `_since` copy is left silently stale.
 */
import type { ChangeEvents } from "../events.js";
import type { PermissionStore } from "../ports/permission-store.js";
import type { UnitOfWork } from "../ports/unit-of-work.js";
import type { AccessStamps, StampedChange } from "./access-stamps.js";
import type { MembershipChange, MembershipChanges, PendingAnnouncement } from "./membership-changes.js";

export interface MembershipsDeps {
  readonly permissions: PermissionStore;
  readonly unitOfWork: UnitOfWork;
  /** True when the permission backend's writes are inside the unit of work's transaction. */
  readonly sharesTransaction: boolean;
  readonly stamps: AccessStamps;
  readonly events: ChangeEvents;
}

/** One holder's change of one principal, as written. */
interface Written {
  readonly holder: string;
  readonly principal: string;
  readonly change: "lost" | "gained";
}

/** What a unit of work wrote: the principals whose members changed, and the journal's stamps. */
interface Recorded {
  readonly announced: readonly string[];
  readonly stamped: readonly StampedChange[];
}

export class Memberships implements MembershipChanges {
  constructor(private readonly deps: MembershipsDeps) {}

  add(principal: string, holders: readonly string[]): Promise<void> {
    return this.apply([{ principal, added: holders }]);
  }

  remove(principal: string, holders: readonly string[]): Promise<void> {
    return this.apply([{ principal, removed: holders }]);
  }

  async removeEverywhere(principal: string): Promise<void> {
    const recorded = await this.deps.unitOfWork.run(async () => {
      const holders = await this.directHolders(principal);
      await this.write(
        holders.map((holder) => ({ holder, principal, change: "lost" as const })),
        () => this.deps.permissions.removePrincipal(principal),
      );
      // Whoever held it through one of its holders is told through the principal itself.
      return { announced: [principal], stamped: await this.stamp(holders, principal, "lost") };
    });
    await this.announce(recorded);
  }

  async within(changes: readonly MembershipChange[]): Promise<PendingAnnouncement> {
    const announced = new Set<string>();
    const stamped: StampedChange[] = [];
    for (const { principal, added = [], fromEveryone = false, ...change } of changes) {
      const removed = [...(change.removed ?? []), ...(fromEveryone ? await this.directHolders(principal) : [])];
      const held = await this.holdersAmong(principal, [...added, ...removed]);
      const gained = unique(added).filter((holder) => !held.has(holder));
      const lost = unique(removed).filter((holder) => held.has(holder));
      const written: Written[] = [
        ...gained.map((holder) => ({ holder, principal, change: "gained" as const })),
        ...lost.map((holder) => ({ holder, principal, change: "lost" as const })),
      ];
      await this.write(written, () => this.writeChanges(written));
      stamped.push(...(await this.stamp(gained, principal, "gained")), ...(await this.stamp(lost, principal, "lost")));
      for (const { holder } of written) announced.add(holder);
    }
    const recorded = { announced: [...announced], stamped };
    return { announce: () => this.announce(recorded) };
  }

  async changedElsewhere(holder: string, principal: string, change: "added" | "removed"): Promise<void> {
    const direction = change === "added" ? "gained" : "lost";
    const stamped = await this.deps.unitOfWork.run(() => this.stamp([holder], principal, direction));
    await this.announce({ announced: [holder], stamped });
  }

  private async apply(changes: readonly MembershipChange[]): Promise<void> {
    const pending = await this.deps.unitOfWork.run(() => this.within(changes));
    await pending.announce();
  }

  /**
   * Runs `write` (the permission backend's change) so that a failure of what follows in the unit
   * of work takes it back where the backend is outside its transaction. Registered before writing:
   * a write whose reply was lost may still have happened.
   */
  private async write(changes: readonly Written[], write: () => Promise<void>): Promise<void> {
    if (changes.length === 0) return;
    const { sharesTransaction, unitOfWork } = this.deps;
    if (!sharesTransaction) unitOfWork.onRollback?.(() => this.undo(changes));
    await write();
  }

  /** The journal's stamps; where nothing rolls back, a failure first takes the written change back. */
  private async stamp(holders: readonly string[], principal: string, change: "lost" | "gained"): Promise<StampedChange[]> {
    const { stamps, unitOfWork, sharesTransaction } = this.deps;
    if (holders.length === 0) return [];
    try {
      return [await stamps.stamp(holders, principal, change)];
    } catch (error) {
      if (!sharesTransaction && !unitOfWork.onRollback) await this.undo(holders.map((holder) => ({ holder, principal, change })));
      throw error;
    }
  }

  private async writeChanges(written: readonly Written[]): Promise<void> {
    const { permissions } = this.deps;
    for (const { holder, principal, change } of written)
      if (change === "gained") await permissions.addUserPrincipal(holder, principal);
      else await permissions.removeUserPrincipal(holder, principal);
  }

  /** The opposite of each change; best effort (logged by the unit of work when it fails there). */
  private async undo(written: readonly Written[]): Promise<void> {
    await this.writeChanges(written.map((w) => ({ ...w, change: w.change === "gained" ? "lost" : "gained" })));
  }

  /** Announced with where the stamps lie (a stream past them replays them), then the stamped scopes are told. */
  private async announce({ announced, stamped }: Recorded): Promise<void> {
    const since = lowest(stamped.map((s) => s.since));
    await Promise.all(announced.map((principal) => this.deps.events.publishPrincipalsChanged(principal, since)));
    for (const change of stamped) this.deps.stamps.announce(change);
  }

  /** Which of `holders` hold `principal` directly (as stored, not through nesting). */
  private async holdersAmong(principal: string, holders: readonly string[]): Promise<Set<string>> {
    if (holders.length === 0) return new Set();
    const direct = await this.deps.permissions.directPrincipals(unique(holders));
    return new Set([...direct].filter(([, principals]) => principals.has(principal)).map(([holder]) => holder));
  }

  private async directHolders(principal: string): Promise<string[]> {
    const members = [...(await this.deps.permissions.membersOf(principal))];
    return [...(await this.holdersAmong(principal, members))];
  }
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}

function lowest(values: readonly (number | undefined)[]): number | undefined {
  const defined = values.filter((v): v is number => v !== undefined);
  return defined.length === 0 ? undefined : Math.min(...defined);
}
