/**
 * An ACL edit of a bucket or a collection changes who reads everything inside it: each principal
 * given or taken `read`/`write` there gains or loses whole lists (a collection's records; a
 * bucket's collections, groups and every collection's records). As for a group change reaching a
 * whole collection (docs/api.md, "Sync"), the lists it changes are marked for a resync of that
 * principal's holders, in the edit's unit of work, and told to the live feed once committed.
 */
import type { Acl } from "../../domain/acl.js";
import { READ, WRITE } from "../../domain/permissions.js";
import type { TreePlace } from "../../domain/tree.js";
import type { ScopeTouched } from "../events.js";
import type { ResourceKindPolicy } from "../kinds/resource-kind-policy.js";
import type { AccessJournal } from "../ports/access-journal.js";
import type { RecordStore } from "../ports/record-store.js";
import { anonymousRequester } from "../requester.js";
import { listsInside } from "./lists-inside.js";
import type { TreeResources } from "./tree-places.js";

export interface InheritedAccessDeps {
  readonly journal: AccessJournal;
  readonly store: RecordStore;
  readonly kind: ResourceKindPolicy;
  readonly resources: TreeResources;
  /** Tells the live feed of a list whose timestamp moved, once the unit of work committed. */
  readonly touched: (event: ScopeTouched) => void;
}

/** The permissions on a bucket or collection that let a principal read what it contains. */
const READ_INSIDE = [READ, WRITE];

export class InheritedAccess {
  constructor(private readonly deps: InheritedAccessDeps) {}

  /** The object `id` of `place` (a bucket or a collection) had ACL `before` and has `after` now. */
  async changed(place: TreePlace, id: string, before: Acl | undefined, after: Acl | undefined): Promise<void> {
    const readers = (acl: Acl | undefined) => new Set(READ_INSIDE.flatMap((p) => acl?.[p] ?? []));
    const was = readers(before);
    const now = readers(after);
    const moved = [...new Set([...was, ...now])].filter((p) => was.has(p) !== now.has(p));
    if (moved.length === 0) return;
    const { journal, kind } = this.deps;
    for (const list of await listsInside(this.deps, place, id)) {
      const scope = kind.scope(anonymousRequester(), list);
      for (const principal of moved) {
        // Still reading the whole list through another grant (the bucket, a setting): nothing moved for it there.
        if (!now.has(principal) && (await kind.allowsCollection({ userId: undefined, principals: [principal] }, list, "list"))) continue;
        const timestamp = await journal.stampResync(scope, principal);
        this.deps.touched({ scope, timestamp });
      }
    }
  }
}
