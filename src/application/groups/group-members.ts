/**
 * The records of the group resource: `data.members` lists the principals that hold the group's
 * principal `group:<id>` (user ids, other groups, `system.Authenticated`). Other fields of `data`
 * are kept as any record's (a title, a description) and mean nothing to access.
 */
import type { ValidationDetail } from "../../domain/errors.js";
import type { JsonObject } from "../../domain/json.js";
import { EVERYONE, isValidPrincipal, unknownSystemPrincipal } from "../../domain/principals.js";
import type { RecordValidator } from "../resources.js";

/** The built-in resource's name, and the prefix of every group principal. */
export const GROUPS_RESOURCE = "groups";
export const GROUP_PREFIX = "group:";

/** Members per group by default (`group_max_members`). */
export const DEFAULT_GROUP_MAX_MEMBERS = 10_000;

export function groupPrincipal(id: string): string {
  return `${GROUP_PREFIX}${id}`;
}

/** The members a valid group record lists (anything else: none). */
export function membersOf(data: JsonObject): string[] {
  const members = data.members;
  return Array.isArray(members) ? members.filter((m): m is string => typeof m === "string") : [];
}

const MEMBERS = "data.members";
const detail = (description: string): ValidationDetail => ({ location: "body", name: MEMBERS, description });

/**
 * `members`: required, a list of distinct principals written as ACLs write them (the same rules:
 * principals.ts), at most `maxMembers`. `system.Everyone` is refused: anonymous requests hold
 * no group, so it would mean what `system.Authenticated` means while saying more.
 */
export function groupMembersValidator(maxMembers: number): RecordValidator {
  return (data) => {
    const members = data.members;
    if (members === undefined) return [detail("members is required: the list of principals that hold the group")];
    if (!Array.isArray(members) || !members.every(isValidPrincipal)) return [detail("members must be a list of principal strings")];
    const problems: ValidationDetail[] = [];
    if (members.length > maxMembers)
      problems.push(detail(`members lists ${members.length} principals: at most ${maxMembers} (group_max_members)`));
    const twice = members.filter((m, i) => members.indexOf(m) !== i);
    if (twice.length > 0) problems.push(detail(`members lists "${twice[0]}" more than once`));
    const typo = unknownSystemPrincipal(members);
    if (typo) problems.push(detail(typo));
    if (members.includes(EVERYONE))
      problems.push(
        detail(`${EVERYONE} cannot be a member: anonymous requests hold no group (system.Authenticated: every signed-in user)`),
      );
    return problems;
  };
}

/** The JSON Schema of a group's data, for the OpenAPI document. */
export const GROUP_SCHEMA: JsonObject = {
  type: "object",
  required: ["members"],
  properties: {
    members: {
      type: "array",
      uniqueItems: true,
      items: { type: "string", minLength: 1 },
      description: "principals holding the group's principal group:<id>",
    },
  },
};
