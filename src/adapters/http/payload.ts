/** Shape checks of request bodies (api-contract §2): anything off is a 400 with details. */
import { ValidationError, type ValidationDetail } from "../../domain/errors.js";
import { isJsonObject, type JsonObject } from "../../domain/json.js";
import type { JsonPatchOperation } from "../../domain/json-patch.js";
import { isValidPrincipal, unknownSystemPrincipal } from "../../domain/principals.js";
import { isValidRecordId } from "../../domain/records.js";
import type { PatchPayload, RecordPayload, Submitted } from "../../application/record-service.js";
import type { ResourceDefinition } from "../../application/resources.js";
import { pythonRepr } from "./python-repr.js";
import { CLIENT_TIMESTAMP_RULE, isAcceptableTimestamp } from "./list-query.js";
import { traitsOf } from "../../application/kinds/kind-traits.js";

const TOP_LEVEL_KEYS = new Set(["data", "permissions"]);

/**
 * A client `last_modified` that is an integer is bounded like `_since`; anything else is ignored
 * and overwritten by the server's timestamp, as Kinto does (its `IgnoredFieldsTest`).
 */
function refusedTimestamp(value: unknown, now: number): boolean {
  return Number.isInteger(value) && !isAcceptableTimestamp(value, now);
}

interface Checked {
  data?: JsonObject;
  permissions?: Record<string, string[] | null>;
}

function check(body: unknown, resource: ResourceDefinition, now: number, allowNull: boolean): Checked {
  const problems: ValidationDetail[] = [];
  const bad = (name: string | null, description: string) => problems.push({ location: "body", name, description });
  if (body === undefined || body === null) return {};
  if (!isJsonObject(body)) throw ValidationError.single("body", null, "Body must be a JSON object");
  const unknown = Object.entries(body).filter(([key]) => !TOP_LEVEL_KEYS.has(key));
  if (unknown.length > 0) bad("", `Unrecognized keys in mapping: "${pythonRepr(Object.fromEntries(unknown))}"`); // Kinto's text
  const result: Checked = {};
  if (body.data !== undefined) {
    if (isJsonObject(body.data)) result.data = body.data;
    else bad("data", `${JSON.stringify(body.data)} is not a mapping type`);
  }
  if (body.permissions !== undefined) {
    if (!traitsOf(resource).keepsAcl) bad("permissions", "User resources do not accept permissions");
    else if (!isJsonObject(body.permissions)) bad("permissions", "permissions must be an object of permission name to list of principals");
    else {
      result.permissions = {};
      for (const [permission, principals] of Object.entries(body.permissions)) {
        if (!resource.permissions.includes(permission))
          bad("permissions", `"${permission}" is not one of ${resource.permissions.join(", ")}`);
        else if (principals === null && allowNull) result.permissions[permission] = null;
        else if (!Array.isArray(principals))
          bad(`permissions.${permission}`, `"${typeof principals === "string" ? principals : pythonRepr(principals)}" is not iterable`);
        else if (!principals.every(isValidPrincipal)) bad(`permissions.${permission}`, "must be a list of principal strings");
        else {
          const typo = unknownSystemPrincipal(principals);
          if (typo) bad(`permissions.${permission}`, typo);
          else result.permissions[permission] = principals;
        }
      }
    }
  }
  // A future timestamp would become the collection's clock and break `_since` for every reader.
  if (refusedTimestamp(result.data?.last_modified, now)) bad("data.last_modified", CLIENT_TIMESTAMP_RULE);
  if (result.data?.id !== undefined && !isValidRecordId(result.data.id)) {
    problems.push({ location: "path", name: null, description: "Invalid object id" });
  }
  if (problems.length > 0) throw new ValidationError(problems);
  return result;
}

/** POST and PUT bodies: `{data?, permissions?}`; `null` permissions are refused. */
export function parseRecordPayload(body: unknown, resource: ResourceDefinition, now: number): RecordPayload {
  return check(body, resource, now, false) as RecordPayload;
}

/** PATCH bodies: at least one of data or permissions; merge patch allows `null` permissions. */
export function parseRecordPatch(body: unknown, resource: ResourceDefinition, merge: boolean, now: number): PatchPayload {
  const checked = check(body, resource, now, true);
  if (checked.data === undefined && checked.permissions === undefined) {
    throw ValidationError.single("body", "data", "Provide at least one of data or permissions");
  }
  // Plain JSON PATCH ignores null permission values (Kinto); merge patch removes them.
  const permissions =
    checked.permissions && !merge
      ? Object.fromEntries(Object.entries(checked.permissions).filter(([, v]) => v !== null))
      : checked.permissions;
  return { data: checked.data, permissions, merge };
}

/** A parsed body, or the ValidationError saying what is wrong with it: the service reports it after authorization. */
export function submitted<T>(parse: () => T): Submitted<T> {
  try {
    return parse();
  } catch (error) {
    if (error instanceof ValidationError) return error;
    throw error;
  }
}

/**
 * JSON Patch operations may set `last_modified` too: a literal integer is bounded like any client
 * timestamp; one copied or moved from elsewhere cannot be checked here and is refused.
 */
export function checkJsonPatchTimestamp(operations: readonly JsonPatchOperation[], now: number): JsonPatchOperation[] {
  const problems: ValidationDetail[] = [];
  operations.forEach((operation, i) => {
    const whole = operation.path === "/data";
    if (!whole && operation.path !== "/data/last_modified") return;
    if (operation.op === "copy" || operation.op === "move")
      problems.push({ location: "body", name: `${i}.path`, description: "last_modified cannot be copied or moved" });
    if (operation.op !== "add" && operation.op !== "replace") return;
    const value = whole ? (isJsonObject(operation.value) ? operation.value.last_modified : undefined) : operation.value;
    if (refusedTimestamp(value, now)) problems.push({ location: "body", name: `${i}.value`, description: CLIENT_TIMESTAMP_RULE });
  });
  if (problems.length > 0) throw new ValidationError(problems);
  return [...operations];
}
