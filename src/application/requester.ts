/**
 * Who sends a request. The user id comes from authentication at once; the full principal set
 * (which needs the permission backend) is computed on first use and then shared, once per
 * request or once per batch.
 */
import { UnauthenticatedError } from "../domain/errors.js";
import { ANONYMOUS, callerPrincipals, type Caller } from "../domain/principals.js";

export interface Requester {
  readonly userId: string | undefined;
  caller(): Promise<Caller>;
  /**
   * While the extra principals are still to be read and are the permission backend's
   * `userPrincipals` (not a custom group finder's): the way to complete the caller with them when
   * they were read together with something else (a record, in one statement). Else undefined.
   */
  groupsToRead?(): ((extra: Iterable<string>) => Promise<Caller>) | undefined;
  /**
   * The caller as resolved now (a new lookup, never the shared one): for a long-lived view that
   * must follow membership. Rejects with UnauthenticatedError once the credential no longer holds.
   */
  resolveAgain?(): Promise<Caller>;
}

export function anonymousRequester(): Requester {
  return { userId: undefined, caller: () => Promise.resolve(ANONYMOUS) };
}

/**
 * Finds a user's extra principals (groups...); by default the permission backend's
 * `userPrincipals`. `held`: the credential's own groups, which the backend expands through nesting.
 */
export type GroupFinder = (userId: string, held?: readonly string[]) => Promise<Iterable<string>>;

export const noGroups: GroupFinder = () => Promise.resolve([]);

/**
 * A requester whose extra principals come from the group finder, asked at most once.
 * `groupsFromPermissions`: the finder is the permission backend's userPrincipals.
 * `fromCredential`: principals the credential itself carries (groups of a token), always held.
 * `stillValid`: whether the credential still holds, asked by `resolveAgain` (a revoked password ends the streams it opened).
 */
export function authenticatedRequester(
  userId: string,
  groupFinder: GroupFinder,
  groupsFromPermissions = false,
  fromCredential: readonly string[] = [],
  stillValid?: () => Promise<boolean>,
): Requester {
  let pending: Promise<Caller> | undefined;
  const principals = (extra: Iterable<string>): Caller =>
    callerPrincipals(userId, fromCredential.length === 0 ? extra : [...fromCredential, ...extra]);
  const adopt = (extra: Iterable<string>): Promise<Caller> => (pending ??= Promise.resolve(principals(extra)));
  return {
    userId,
    // A store that checks access together with the principals knows only its own: not the credential's.
    groupsToRead: () => (groupsFromPermissions && fromCredential.length === 0 && pending === undefined ? adopt : undefined),
    resolveAgain: async () => {
      if (stillValid !== undefined && !(await stillValid())) throw new UnauthenticatedError();
      return principals(await groupFinder(userId, fromCredential));
    },
    caller() {
      pending ??= groupFinder(userId, fromCredential).then(
        (extra) => principals(extra),
        (error: unknown) => {
          pending = undefined; // a failed lookup may be retried by a later sub-request
          throw error;
        },
      );
      return pending;
    },
  };
}
