/** Accounts in a Map, retired ids in a Set (one process; nothing survives a restart). */
import type { AccountCreation, AccountStore, StoredAccount } from "../../application/accounts/account-store.js";

export class MemoryAccountStore implements AccountStore {
  private readonly accounts = new Map<string, StoredAccount>();
  private readonly retired = new Set<string>();

  initializeSchema(): Promise<void> {
    return Promise.resolve();
  }

  get(id: string): Promise<StoredAccount | undefined> {
    return Promise.resolve(this.accounts.get(id));
  }

  create(account: StoredAccount): Promise<AccountCreation> {
    if (this.retired.has(account.id)) return Promise.resolve({ status: "retired" });
    if (this.accounts.has(account.id)) return Promise.resolve({ status: "taken" });
    const stored = { ...account };
    this.accounts.set(account.id, stored);
    return Promise.resolve({ status: "created", account: stored });
  }

  updatePassword(id: string, passwordHash: string, lastModified: number): Promise<StoredAccount | undefined> {
    const existing = this.accounts.get(id);
    if (!existing) return Promise.resolve(undefined);
    // Strictly increasing, as the PostgreSQL adapter's, even within one millisecond.
    const updated = { id, passwordHash, lastModified: Math.max(lastModified, existing.lastModified + 1) };
    this.accounts.set(id, updated);
    return Promise.resolve(updated);
  }

  delete(id: string): Promise<StoredAccount | undefined> {
    const existing = this.accounts.get(id);
    if (existing) {
      this.accounts.delete(id);
      this.retired.add(id);
    }
    return Promise.resolve(existing);
  }

  list(limit: number, after?: string): Promise<StoredAccount[]> {
    const ids = [...this.accounts.keys()].filter((id) => after === undefined || id > after).sort(byCodeUnit);
    return Promise.resolve(ids.slice(0, limit).map((id) => this.accounts.get(id) as StoredAccount));
  }

  flush(): Promise<void> {
    this.accounts.clear();
    this.retired.clear();
    return Promise.resolve();
  }
}

/** The order of PostgreSQL's "C" collation for these ASCII ids. */
function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
