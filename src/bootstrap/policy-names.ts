/**
 * Policy names that would make user ids pass for principals the product gives a meaning to. A
 * policy's user ids are `<name>:<id>`, so a policy named `group` turns a token whose subject is
 * `admins` into `group:admins`, and one named `account` into the owner of an account.
 */
import { ACCOUNT_PREFIX } from "../application/accounts/account-rules.js";

/** Why the policy `name` (implemented by `use`, our short name) may not bear it, or undefined when it may. */
export function reservedPolicyName(name: string, use: string): string | undefined {
  const refused = (why: string) => `multiauth.policies: a policy may not be named "${name}": ${why} (rename it)`;
  if (name.includes(":"))
    return refused(`user ids are "<policy>:<id>", so a colon in the name lets two policies give one id ("a:b" + "c" = "a" + "b:c")`);
  if (name === "group") return refused(`its user ids "group:<id>" would be group principals (groups_claim, user principals)`);
  // Any `system.` principal but the known ones is refused in permissions as a typo (principals.ts).
  if (/^system(\.|$)/i.test(name)) return refused(`"system" names the system principals (system.Everyone, system.Authenticated)`);
  if (`${name}:` === ACCOUNT_PREFIX && use !== "accounts")
    return refused(
      `its user ids "account:<id>" would pass as accounts (their owners manage them); only the accounts policy may be named so`,
    );
  return undefined;
}
