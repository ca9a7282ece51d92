/**
 * Accounts in the storage database's `accounts` table (migrations Accounts1764201600000 and
 * RetiredAccounts1764374400000): a deleted account's row stays, `retired`, so that the primary
 * key refuses its id to every later sign-up, concurrent ones included.
 */
import type { AccountCreation, AccountStore, StoredAccount } from "../../application/accounts/account-store.js";
import type { PostgresDatabase } from "./postgres-database.js";

interface AccountRow {
  id: string;
  password_hash: string;
  last_modified: string;
}

const COLUMNS = "id, password_hash, last_modified";
const GET = { name: "tessera_account_get", text: `SELECT ${COLUMNS} FROM accounts WHERE id = $1 AND NOT retired` };
const CREATE = {
  name: "tessera_account_create",
  text: `INSERT INTO accounts (id, password_hash, last_modified) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING RETURNING ${COLUMNS}`,
};
/** Why CREATE inserted nothing. A row is never removed (but by flush), so the conflicting one is there. */
const HOLDER = { name: "tessera_account_holder", text: `SELECT retired FROM accounts WHERE id = $1` };
// Strictly increasing, even when the clock has not moved since the last write.
const UPDATE = {
  name: "tessera_account_update",
  text: `UPDATE accounts SET password_hash = $2, last_modified = GREATEST($3::bigint, last_modified + 1) WHERE id = $1 AND NOT retired RETURNING ${COLUMNS}`,
};
// The live row as it was, read under the lock the retirement takes (a concurrent deletion answers nothing).
const DELETE = {
  name: "tessera_account_delete",
  text: `WITH live AS (SELECT ${COLUMNS} FROM accounts WHERE id = $1 AND NOT retired FOR UPDATE)
    UPDATE accounts SET retired = TRUE, password_hash = NULL FROM live WHERE accounts.id = live.id
    RETURNING live.id, live.password_hash, live.last_modified`,
};
const LIST = {
  name: "tessera_account_list",
  text: `SELECT ${COLUMNS} FROM accounts WHERE id > $1 AND NOT retired ORDER BY id LIMIT $2`,
};

function account(row: AccountRow | undefined): StoredAccount | undefined {
  return row && { id: row.id, passwordHash: row.password_hash, lastModified: Number(row.last_modified) };
}

export class PostgresAccountStore implements AccountStore {
  constructor(private readonly database: PostgresDatabase) {}

  async initializeSchema(): Promise<void> {
    await this.database.migrate("storage");
  }

  async get(id: string): Promise<StoredAccount | undefined> {
    return account((await this.database.read<AccountRow>("storage", GET, [id]))[0]);
  }

  async create(created: StoredAccount): Promise<AccountCreation> {
    const rows = await this.database.query<AccountRow>("storage", CREATE, [created.id, created.passwordHash, created.lastModified]);
    const inserted = account(rows[0]);
    if (inserted) return { status: "created", account: inserted };
    const holder = await this.database.query<{ retired: boolean }>("storage", HOLDER, [created.id]);
    return { status: holder[0]?.retired === true ? "retired" : "taken" };
  }

  async updatePassword(id: string, passwordHash: string, lastModified: number): Promise<StoredAccount | undefined> {
    return account((await this.database.query<AccountRow>("storage", UPDATE, [id, passwordHash, lastModified]))[0]);
  }

  async delete(id: string): Promise<StoredAccount | undefined> {
    return account((await this.database.query<AccountRow>("storage", DELETE, [id]))[0]);
  }

  async list(limit: number, after?: string): Promise<StoredAccount[]> {
    const rows = await this.database.read<AccountRow>("storage", LIST, [after ?? "", limit]);
    return rows.map((row) => account(row) as StoredAccount);
  }

  async flush(): Promise<void> {
    await this.database.query("storage", "DELETE FROM accounts");
  }
}
