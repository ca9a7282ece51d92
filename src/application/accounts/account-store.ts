/**
 * Where accounts live (the storage backend): an id and the password's hash, never the password.
 * A deleted account's id is retired for good: no one can ever be `account:<id>` again, so nothing
 * granted to the old account (groups, shares, records of user resources) passes to someone else.
 * Adapters wrap driver failures in BackendError("storage").
 */
export interface StoredAccount {
  readonly id: string;
  /** The encoded hash (algorithm and parameters included), as the PasswordHasher wrote it. */
  readonly passwordHash: string;
  readonly lastModified: number;
}

/** What `create` did: added the account, or refused an id held by a live account or retired. */
export type AccountCreation =
  { readonly status: "created"; readonly account: StoredAccount } | { readonly status: "taken" } | { readonly status: "retired" };

export interface AccountStore {
  /** Creates tables if the backend needs them; idempotent. */
  initializeSchema(): Promise<void>;
  /** A live account; undefined for an unknown or retired id. */
  get(id: string): Promise<StoredAccount | undefined>;
  /** Adds the account unless the id is taken or retired (then nothing changes). */
  create(account: StoredAccount): Promise<AccountCreation>;
  /** Replaces the hash; undefined when there is no such live account. */
  updatePassword(id: string, passwordHash: string, lastModified: number): Promise<StoredAccount | undefined>;
  /**
   * Removes the live account and retires its id (its hash is forgotten); returns what was there,
   * undefined when there was no live account.
   */
  delete(id: string): Promise<StoredAccount | undefined>;
  /** Live accounts in id order, from `after` (exclusive) on, at most `limit`. */
  list(limit: number, after?: string): Promise<StoredAccount[]>;
  /** Deletes every account and every retired id. For tests and resets, never for a deletion. */
  flush(): Promise<void>;
}
