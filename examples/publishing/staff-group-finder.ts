/**
 * A group finder: the user principals the permission backend holds (as by default), plus
 * `group:staff` for the user ids listed in the `publishing_staff` setting.
 */
import type { ExtensionContext } from "../../src/application/extension.js";
import type { GroupFinder } from "../../src/application/requester.js";
import { listValue } from "../../src/bootstrap/settings.js";

export const STAFF_SETTING = "publishing_staff";
export const STAFF = "group:staff";

export function staffGroupFinder(context: ExtensionContext): GroupFinder {
  const staff = new Set(listValue(context.settings[STAFF_SETTING]));
  const permissions = context.permissions;
  return async (userId) => {
    const stored = permissions ? [...(await permissions.userPrincipals(userId))] : [];
    return staff.has(userId) ? [...stored, STAFF] : stored;
  };
}
