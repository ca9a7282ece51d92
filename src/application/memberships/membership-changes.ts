/**
 * Membership changes as one use case: who holds a principal (a user id, a group nested in
 * another, `system.Authenticated`). Each change is written together with what it took from or
 * gave to its holders in the access journal (docs/api.md, "Sync"), in one unit of work where the
 * backends share a transaction, and then announced to the live feed on every process. Used by the
 * group resource, by account deletion and by extensions; never a PermissionStore decorator.
 */

/** One change of one principal's holders. */
export interface MembershipChange {
  /** The principal given or taken (`group:editors`). */
  readonly principal: string;
  /** Holders given the principal (those holding it already are left out). */
  readonly added?: readonly string[];
  /** Holders it is taken from (those not holding it are left out). */
  readonly removed?: readonly string[];
  /** Taken from every holder too (a group deleted): whoever holds it directly, found in the unit of work. */
  readonly fromEveryone?: boolean;
}

/** What a change recorded, to be announced once the unit of work it ran in has committed. */
export interface PendingAnnouncement {
  announce(): Promise<void>;
}

export interface MembershipChanges {
  /** Gives `principal` to each holder: recorded, committed, then announced before it returns. */
  add(principal: string, holders: readonly string[]): Promise<void>;
  /** Takes `principal` from each holder, likewise. */
  remove(principal: string, holders: readonly string[]): Promise<void>;
  /** Takes `principal` from every holder (a group or an account deleted), likewise. */
  removeEverywhere(principal: string): Promise<void>;
  /**
   * For a caller that writes more in the same unit of work (the group resource writes the group
   * record too): the changes are written and journaled inside the caller's `UnitOfWork.run`, and
   * the caller calls `announce()` on the answer once that run has returned (committed).
   */
  within(changes: readonly MembershipChange[]): Promise<PendingAnnouncement>;
  /**
   * A change made where Tessera cannot see it (an extension's group finder reads groups from
   * elsewhere): journaled and announced as if made here. Tell only real changes.
   */
  changedElsewhere(holder: string, principal: string, change: "added" | "removed"): Promise<void>;
}
