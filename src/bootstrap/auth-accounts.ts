/**
 * Accounts (Kinto's accounts plugin), composed when a policy of `multiauth.policies` uses them:
 * the storage technology binds ACCOUNT_STORE; the sign-in check, the resource service and the
 * policy are built here from it, the cache backend and the settings.
 */
import type { Container, ServiceIdentifier } from "inversify";
import { AccountService } from "../application/accounts/account-service.js";
import { AccountSignIn } from "../application/accounts/account-sign-in.js";
import type { AccountStore } from "../application/accounts/account-store.js";
import type { ChangeEvents } from "../application/events.js";
import type { Cache } from "../application/ports/cache.js";
import type { Clock } from "../application/ports/clock.js";
import type { MembershipChanges } from "../application/memberships/membership-changes.js";
import type { PermissionStore } from "../application/ports/permission-store.js";
import { ScryptPasswordHasher } from "../adapters/auth/scrypt-password-hasher.js";
import type { Settings } from "./settings.js";
import { TOKENS } from "./tokens.js";

export interface Accounts {
  readonly signIn: AccountSignIn;
  readonly service: AccountService;
}

/** Bound by each storage technology's module. */
export const ACCOUNT_STORE = Symbol("AccountStore") as ServiceIdentifier<AccountStore>;
/** Bound only when accounts are on. */
export const ACCOUNTS = Symbol("Accounts") as ServiceIdentifier<Accounts>;

/** Password hashes running at once per process (128 MiB each at the default cost). */
const HASHES_AT_ONCE = 2;

export function accountsEnabled(settings: Settings): boolean {
  return settings.auth.policies.some((p) => p.use === "accounts");
}

export function bindAccounts(container: Container, settings: Settings): void {
  if (!accountsEnabled(settings)) return;
  const options = settings.auth.accounts;
  container.bind(ACCOUNTS).toResolvedValue(
    (
      store: AccountStore,
      cache: Cache,
      clock: Clock,
      events: ChangeEvents,
      permissions: PermissionStore | undefined,
      memberships: MembershipChanges | undefined,
    ): Accounts => {
      const hasher = new ScryptPasswordHasher({ cost: options.scryptCost, concurrency: HASHES_AT_ONCE });
      const signIn = new AccountSignIn(store, cache, hasher, {
        secret: settings.userIdHmacSecret,
        cacheTtlSeconds: options.cacheTtlSeconds,
        localCacheSeconds: options.localCacheSeconds,
        maxFailedSignIns: options.maxFailedSignIns,
        failedSignInWindowSeconds: options.failedSignInWindowSeconds,
        // A process-local cache beside accounts other processes share does not see their changes.
        cacheShared: settings.cache.backend !== "memory" || settings.storage.backend === "memory",
        hashesAtOnce: HASHES_AT_ONCE,
      });
      const service = new AccountService({
        store,
        signIn,
        clock,
        settings: options,
        ...(permissions && memberships ? { onDeleted: (userId: string) => forgetPrincipal(permissions, memberships, userId) } : {}),
        // Announced as a principal change: every process's streams of that user follow it, and re-checking the credential ends them.
        onRevoked: (userId: string) => events.publishPrincipalsChanged(userId),
      });
      return { signIn, service };
    },
    [
      ACCOUNT_STORE,
      TOKENS.Cache,
      TOKENS.Clock,
      TOKENS.ChangeEvents,
      { serviceIdentifier: TOKENS.PermissionStore, optional: true },
      { serviceIdentifier: TOKENS.Memberships, optional: true },
    ],
  );
}

/**
 * A deleted account's principal, both ways: removed where others hold it, and its own memberships
 * removed, as membership changes, so that `_since` and the live feed follow.
 */
async function forgetPrincipal(permissions: PermissionStore, memberships: MembershipChanges, userId: string): Promise<void> {
  await memberships.removeEverywhere(userId);
  const held = (await permissions.directPrincipals([userId])).get(userId) ?? new Set<string>();
  for (const principal of held) await memberships.remove(principal, [userId]);
}
