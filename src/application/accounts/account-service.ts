/**
 * The accounts resource as Kinto's accounts plugin serves it: anyone in `account_create_principals`
 * signs up; an account is managed by its owner (`account:<id>`) and by the administrators of
 * `account_write_principals` (`account_read_principals` may also read every account). Passwords
 * are hashed here and never leave: views carry the id and the modification time only.
 */
import { ForbiddenError, RecordNotFoundError, UnauthenticatedError, ValidationError } from "../../domain/errors.js";
import type { Caller } from "../../domain/principals.js";
import type { Clock } from "../ports/clock.js";
import type { AccountSignIn, HashClient } from "./account-sign-in.js";
import type { AccountStore, StoredAccount } from "./account-store.js";
import { accountUserId, isValidAccountId, passwordProblem } from "./account-rules.js";

export interface AccountView {
  readonly id: string;
  readonly lastModified: number;
}

export interface AccountPolicySettings {
  readonly createPrincipals: readonly string[];
  readonly writePrincipals: readonly string[];
  readonly readPrincipals: readonly string[];
}

/** Kinto's answer to an anonymous sign-up with a taken id (403, not 409: nothing else is told). */
export class AccountExistsError extends ForbiddenError {
  constructor(id: string) {
    super();
    this.message = `Account ID '${id}' already exists`;
  }
}

/**
 * A sign-up with the id of a deleted account (403): ids are never given again, so that no one
 * inherits what was granted to the old `account:<id>` (groups, shares, records of user resources).
 */
export class AccountRetiredError extends ForbiddenError {
  constructor(id: string) {
    super();
    this.message = `Account ID '${id}' belonged to a deleted account and cannot be used again`;
  }
}

export interface AccountServiceDeps {
  readonly store: AccountStore;
  readonly signIn: AccountSignIn;
  readonly clock: Clock;
  readonly settings: AccountPolicySettings;
  /**
   * Called after a deletion with `account:<id>`, to remove what the old account held and where
   * it was held (no one can hold that id again: this is cleaning, not the guard).
   */
  readonly onDeleted?: (userId: string) => Promise<void>;
  /**
   * Called with `account:<id>` after its password changed or it was deleted, before the request
   * returns: the streams its old credential opened end, on every process.
   */
  readonly onRevoked?: (userId: string) => Promise<void>;
}

export const ACCOUNT_RESOURCE = "account";

export class AccountService {
  constructor(private readonly deps: AccountServiceDeps) {}

  /** A valid id from a URL or body, else a 400 naming where it came from. */
  static checkId(id: unknown, location: "path" | "body", name: string): string {
    if (typeof id !== "string" || !isValidAccountId(id)) throw ValidationError.single(location, name, "Invalid account id");
    return id;
  }

  static checkPassword(password: unknown): string {
    const problem = passwordProblem(password);
    if (problem !== undefined) throw ValidationError.single("body", "data.password", `data.password in body: ${problem}`);
    return password as string;
  }

  /**
   * `PUT /accounts/{id}`: signs up when free, else changes the password (owner or administrator).
   * `password` is read after the authorization (a refused caller learns nothing of their body);
   * `client`: whose hash it is, so that it takes its turn with the sign-ins' (AccountSignIn.hashPassword).
   */
  async put(caller: Caller, id: string, password: () => string, client?: HashClient): Promise<{ account: AccountView; created: boolean }> {
    const existing = await this.deps.store.get(id);
    if (existing) return { account: await this.changePassword(caller, id, password, client), created: false };
    return { account: await this.create(caller, id, password, client), created: true };
  }

  /** `POST /accounts`: signs up; a taken id is the existing account for its managers (Kinto's 200), else 403. */
  async post(caller: Caller, id: string, password: () => string, client?: HashClient): Promise<{ account: AccountView; created: boolean }> {
    this.checkMayCreate(caller, id);
    const existing = await this.deps.store.get(id);
    if (existing) {
      if (!this.mayWrite(caller, id)) throw new AccountExistsError(id);
      return { account: view(existing), created: false };
    }
    return { account: await this.create(caller, id, password, client), created: true };
  }

  async get(caller: Caller, id: string): Promise<AccountView> {
    this.checkMayRead(caller, id);
    const account = await this.deps.store.get(id);
    if (!account) throw new RecordNotFoundError(ACCOUNT_RESOURCE, id);
    return view(account);
  }

  /** The caller's own account, or every account for administrators. */
  async list(caller: Caller, limit: number, after?: string): Promise<AccountView[]> {
    if (caller.userId === undefined) throw new UnauthenticatedError();
    if (this.isAdministrator(caller, "read")) return (await this.deps.store.list(limit, after)).map(view);
    const own = ownAccountId(caller);
    if (own === undefined || (after !== undefined && own <= after)) return [];
    const account = await this.deps.store.get(own);
    return account ? [view(account)] : [];
  }

  async changePassword(caller: Caller, id: string, password: () => string, client?: HashClient): Promise<AccountView> {
    this.checkMayWrite(caller, id);
    const hash = await this.deps.signIn.hashPassword(password(), client);
    const updated = await this.deps.store.updatePassword(id, hash, this.deps.clock.now());
    if (!updated) throw new RecordNotFoundError(ACCOUNT_RESOURCE, id);
    await this.deps.signIn.forget(id);
    await this.deps.onRevoked?.(accountUserId(id));
    return view(updated);
  }

  async delete(caller: Caller, id: string): Promise<AccountView> {
    this.checkMayWrite(caller, id);
    const deleted = await this.deps.store.delete(id);
    if (!deleted) throw new RecordNotFoundError(ACCOUNT_RESOURCE, id);
    await this.deps.signIn.forget(id);
    await this.deps.onDeleted?.(accountUserId(id));
    await this.deps.onRevoked?.(accountUserId(id));
    return { id, lastModified: this.deps.clock.now() };
  }

  private async create(caller: Caller, id: string, password: () => string, client?: HashClient): Promise<AccountView> {
    this.checkMayCreate(caller, id);
    const hash = await this.deps.signIn.hashPassword(password(), client);
    const creation = await this.deps.store.create({ id, passwordHash: hash, lastModified: this.deps.clock.now() });
    if (creation.status === "created") return view(creation.account);
    // Administrators included: no one may become a deleted account's `account:<id>`.
    if (creation.status === "retired") throw new AccountRetiredError(id);
    // Taken meanwhile by a concurrent sign-up: as if it had been there first.
    throw this.mayWrite(caller, id) ? new ForbiddenError() : new AccountExistsError(id);
  }

  private checkMayCreate(caller: Caller, id: string): void {
    const { createPrincipals } = this.deps.settings;
    const administrator = this.isAdministrator(caller, "write");
    if (!administrator && !holdsAny(caller, createPrincipals))
      throw caller.userId === undefined ? new UnauthenticatedError() : new ForbiddenError();
    // Kinto: a signed-in user who is no administrator creates only the account of their own id.
    if (!administrator && caller.userId !== undefined && caller.userId !== accountUserId(id))
      throw ValidationError.single("body", "data.id", "Username and account ID do not match.");
  }

  private checkMayRead(caller: Caller, id: string): void {
    if (caller.userId === accountUserId(id) || this.isAdministrator(caller, "read")) return;
    throw caller.userId === undefined ? new UnauthenticatedError() : new ForbiddenError();
  }

  private checkMayWrite(caller: Caller, id: string): void {
    if (this.mayWrite(caller, id)) return;
    throw caller.userId === undefined ? new UnauthenticatedError() : new ForbiddenError();
  }

  private mayWrite(caller: Caller, id: string): boolean {
    return caller.userId === accountUserId(id) || this.isAdministrator(caller, "write");
  }

  /** Writers are readers too, as in Kinto (write implies read). */
  private isAdministrator(caller: Caller, permission: "read" | "write"): boolean {
    const { writePrincipals, readPrincipals } = this.deps.settings;
    return holdsAny(caller, writePrincipals) || (permission === "read" && holdsAny(caller, readPrincipals));
  }
}

function holdsAny(caller: Caller, principals: readonly string[]): boolean {
  return principals.some((p) => caller.principals.includes(p));
}

function ownAccountId(caller: Caller): string | undefined {
  return caller.userId?.startsWith("account:") ? caller.userId.slice("account:".length) : undefined;
}

function view(account: StoredAccount): AccountView {
  return { id: account.id, lastModified: account.lastModified };
}
