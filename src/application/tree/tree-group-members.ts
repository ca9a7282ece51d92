/**
 * A bucket's group (Kinto's rules): `members` may be left out (no member), else a list of user
 * principals written as ACLs write them, at most `maxMembers`; neither `system.Everyone` nor
 * another group (a URI under `/buckets/`) is a member there.
 */
import type { ValidationDetail } from "../../domain/errors.js";
import { EVERYONE, isValidPrincipal, unknownSystemPrincipal } from "../../domain/principals.js";
import type { RecordValidator } from "../resources.js";

export function treeGroupMembersValidator(maxMembers: number): RecordValidator {
  return (data) => {
    const members = data.members;
    if (members === undefined) return [];
    const detail = (name: string, description: string): ValidationDetail => ({ location: "body", name, description });
    if (!Array.isArray(members) || !members.every(isValidPrincipal))
      return [detail("data.members", "members must be a list of principal strings")];
    const problems: ValidationDetail[] = [];
    if (members.length > maxMembers)
      problems.push(detail("data.members", `members lists ${members.length} principals: at most ${maxMembers} (group_max_members)`));
    members.forEach((member, i) => {
      if (member === EVERYONE || member.startsWith("/buckets/"))
        problems.push(detail(`data.members.${i}`, `'${member}' is not a valid user ID.`));
    });
    const typo = unknownSystemPrincipal(members);
    if (typo) problems.push(detail("data.members", typo));
    return problems;
  };
}
