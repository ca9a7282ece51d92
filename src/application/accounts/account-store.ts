/**
 * Where accounts live (the storage backend): an id and the password's hash, never the password.
 * Adapters wrap driver failures in BackendError("storage").
 */
export interface StoredAccount {
  readonly id: string;
  /** The encoded hash (algorithm and parameters included), as the PasswordHasher wrote it. */
  readonly passwordHash: string;
  readonly lastModified: number;
}

/** What `create` did: added the account, or refused an id a live account holds. */
export type AccountCreation = { readonly status: "created"; readonly account: StoredAccount } | { readonly status: "taken" };

export interface AccountStore {
  /** Creates tables if the backend needs them; idempotent. */
  initializeSchema(): Promise<void>;
  get(id: string): Promise<StoredAccount | undefined>;
  /** Adds the account unless the id is taken (then nothing changes). */
  create(account: StoredAccount): Promise<AccountCreation>;
  /** Replaces the hash; undefined when there is no such account. */
  updatePassword(id: string, passwordHash: string, lastModified: number): Promise<StoredAccount | undefined>;
  /** Removes the account; undefined when there was none. */
  delete(id: string): Promise<StoredAccount | undefined>;
  /** Accounts in id order, from `after` (exclusive) on, at most `limit`. */
  list(limit: number, after?: string): Promise<StoredAccount[]>;
  /** Deletes every account. For tests and resets. */
  flush(): Promise<void>;
}
