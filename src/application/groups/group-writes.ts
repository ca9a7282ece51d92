/**
 * The one consequence of writing a group record: the group's principal `group:<id>` is held by
 * exactly its members. Each write's membership change (the members before and after it) goes
 * through MembershipChanges in the write's own unit of work, and is announced once it committed.
 * A create is refused when the id's principal already means something (PrincipalUse).
 */
import { ForbiddenError, ValidationError } from "../../domain/errors.js";
import type { MembershipChange, MembershipChanges } from "../memberships/membership-changes.js";
import type { AfterCommit, RecordWrite, WriteConsequences } from "../resources.js";
import { membersOf } from "./group-members.js";
import type { PrincipalUse } from "./principal-use.js";

export interface GroupWritesDeps {
  readonly memberships: MembershipChanges;
  readonly use: PrincipalUse;
  /** The principal a group record gives its members (`group:<id>`, or a tree group's URI). */
  readonly principalOf: (id: string) => string;
  /** Where an announcement that failed after a batch committed is reported (nobody awaits it). */
  readonly log: (error: unknown, message: string) => void;
}

export class GroupWrites implements WriteConsequences {
  constructor(private readonly deps: GroupWritesDeps) {}

  async check(writes: readonly RecordWrite[]): Promise<void> {
    for (const write of writes) {
      if (write.action === "delete") continue;
      const principal = this.deps.principalOf(write.id);
      if (membersOf(write.after).includes(principal))
        throw ValidationError.single("body", "data.members", `a group cannot be its own member ("${principal}")`);
      if (write.action !== "create") continue;
      const why = await this.deps.use.whyInUse(principal);
      if (why !== undefined) throw new ForbiddenError(why);
    }
  }

  async apply(writes: readonly RecordWrite[]): Promise<AfterCommit> {
    const changes = writes.map((write) => this.change(write));
    const meaningful = changes.filter((c) => c.fromEveryone === true || (c.added?.length ?? 0) + (c.removed?.length ?? 0) > 0);
    if (meaningful.length === 0) return () => Promise.resolve();
    const pending = await this.deps.memberships.within(meaningful);
    return () =>
      pending.announce().catch((error: unknown) => {
        this.deps.log(error, "a group's membership change was committed but not announced");
        throw error;
      });
  }

  /** Who gains and who loses the group's principal by this write. */
  private change(write: RecordWrite): MembershipChange {
    const principal = this.deps.principalOf(write.id);
    switch (write.action) {
      case "create":
        return { principal, added: membersOf(write.after) };
      case "update": {
        const before = new Set(membersOf(write.before));
        const after = new Set(membersOf(write.after));
        return {
          principal,
          added: [...after].filter((m) => !before.has(m)),
          removed: [...before].filter((m) => !after.has(m)),
        };
      }
      case "delete":
        // Every holder loses it, members or not (as removeEverywhere); the ACEs naming it stay.
        return { principal, fromEveryone: true };
    }
  }
}
