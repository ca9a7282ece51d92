/**
 * A restricted listing bounded below in `last_modified` (a `_since` sync, `gt_last_modified`, a
 * feed's replay) where the permission backend lives apart from the records: started from what
 * changed after the position, not from every id the caller may read, so that its cost follows
 * the changes (an empty `_since` costs a query or two whatever the caller may read).
 *
 * In rounds: the changed entries after the cursor (records and tombstones, in the listing's
 * order, unrestricted) and the caller's losses after it; their current ACLs read in one batch;
 * then the page through the store, restricted to those ids the caller may read. Every entry the
 * ids-first listing would show is among what was read, so the page is the same: a record only
 * when its id is readable, a lost-access tombstone only when its id is not. A round that read a
 * full window gives its entries up to the window's end (sorted by `last_modified` alone; any
 * other order goes the ids-first way), and the next round starts there with a window twice as
 * large; past the budget of changes read, the rest of the page goes the ids-first way.
 */
import type { RecordOrTombstone } from "../../domain/records.js";
import { MODIFIED_FIELD, syncPosition, type Filter, type ListQuery, type PageCursor, type RecordAccess } from "../listing.js";
import type { AccessJournal } from "../ports/access-journal.js";
import type { RecordStore, Scope } from "../ports/record-store.js";

export interface ChangesWindow {
  /** Changes read by the first round (at least the page's limit); each next round reads twice as many. */
  readonly first: number;
  /** Changes read at most before the rest of the page is read through every id the caller may read. */
  readonly budget: number;
}

export const DEFAULT_CHANGES_WINDOW: ChangesWindow = { first: 100, budget: 5_000 };

export interface ChangesFirstDeps {
  readonly records: RecordStore;
  /** Where the records given to the caller's principals after the position are found. */
  readonly journal: AccessJournal;
  /** The caller's principals, whose losses a listing with tombstones shows. */
  readonly principals: readonly string[];
  /** The ids among `ids` the caller may read now (one batched read of their ACLs). */
  readonly readable: (ids: readonly string[]) => Promise<ReadonlySet<string>>;
  /** Every id the caller may read: the ids-first way. */
  readonly granted: () => Promise<RecordAccess>;
  readonly window: ChangesWindow;
}

/** Whether the filters bound `last_modified` from below (`gt`, `min`, `eq` on a number): a listing of changes. */
function fromPosition(filters: readonly Filter[]): boolean {
  return filters.some((f) => f.field === MODIFIED_FIELD && typeof f.value === "number" && ["gt", "min", "eq"].includes(f.operator));
}

/** The listing `query` restricted to what the caller may read, as with `access` = every readable id and the caller's principals. */
export async function restrictedList(deps: ChangesFirstDeps, scope: Scope, query: ListQuery): Promise<RecordOrTombstone[]> {
  const { records, principals } = deps;
  const idsFirst = async (after: PageCursor | undefined, limit: number) =>
    records.list(scope, { ...withAfter(query, after), limit, access: await deps.granted() });
  if (query.limit <= 0) return [];
  if (!fromPosition(query.filters)) return idsFirst(query.after, query.limit);
  const byModified = query.sort.every((key) => key.field === MODIFIED_FIELD);
  const descending = query.sort[0]?.descending === true;
  const page: RecordOrTombstone[] = [];
  let after = query.after;
  // Records given to the caller's principals after the position (a group change): candidates of the first round.
  const position = syncPosition(query.filters);
  let gained = position === undefined ? [] : await deps.journal.gainedAccessAfter(scope, principals, position);
  let read = gained.length;
  for (let size = Math.max(query.limit, deps.window.first); read < deps.window.budget; size *= 2) {
    const window: ListQuery = { ...unrestricted(withAfter(query, after)), limit: size };
    const [changed, lost] = await Promise.all([
      records.list(scope, window),
      query.includeDeleted ? records.list(scope, { ...window, access: { ids: [], principals } }) : [],
    ]);
    read += changed.length + lost.length;
    const ends = [changed, lost].filter((entries) => entries.length === size).map((entries) => entries[size - 1]?.lastModified ?? 0);
    if (ends.length > 0 && !byModified) break;
    const end = ends.length === 0 ? undefined : descending ? Math.max(...ends) : Math.min(...ends);
    const readable = await deps.readable([...new Set([...changed, ...lost].map((entry) => entry.id).concat(gained))]);
    gained = [];
    const wanted = query.limit - page.length;
    const found =
      readable.size === 0 && lost.length === 0
        ? []
        : await records.list(scope, { ...withAfter(query, after), limit: wanted, access: { ids: [...readable], principals } });
    page.push(...(end === undefined ? found : found.filter((e) => (descending ? e.lastModified >= end : e.lastModified <= end))));
    if (end === undefined || page.length === query.limit) return page;
    after = { values: query.sort.map(() => end) };
  }
  page.push(...(await idsFirst(after, query.limit - page.length)));
  return page;
}

function withAfter(query: ListQuery, after: PageCursor | undefined): ListQuery {
  const { after: _replaced, ...rest } = query;
  return after === undefined ? rest : { ...rest, after };
}

function unrestricted(query: ListQuery): ListQuery {
  const { access: _dropped, ...rest } = query;
  return rest;
}
