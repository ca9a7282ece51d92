/**
 * JSON Patch on a record the way Kinto exposes it: the operations address the document
 * `{"data": {...}, "permissions": {"<perm>": {"<principal>": "<principal>"}}}`, each permission being
 * a set (so `/permissions/read/<principal>` needs no value).
 */
import type { Acl } from "./acl.js";
import { ValidationError } from "./errors.js";
import { isJsonObject, type JsonObject } from "./json.js";
import { applyJsonPatch, JsonPatchError, type JsonPatchOperation } from "./json-patch.js";
import { isValidPrincipal, unknownSystemPrincipal } from "./principals.js";

export interface PatchedRecord {
  readonly data: JsonObject;
  readonly permissions: Record<string, string[]>;
}

const failed = (reason: string) => ValidationError.single("body", null, `JSON Patch operation failed: ${reason}`);

/** `record` is the stored data with `id` and `last_modified`; `permissionNames` the resource's permissions. */
export function applyRecordJsonPatch(
  record: JsonObject,
  acl: Acl,
  operations: readonly JsonPatchOperation[],
  permissionNames: readonly string[],
): PatchedRecord {
  const permissions = Object.fromEntries(permissionNames.map((name) => [name, Object.fromEntries((acl[name] ?? []).map((p) => [p, p]))]));
  const withValues = operations.map((operation) => {
    const [, root, permission, principal, ...rest] = operation.path.split("/");
    const isPrincipal =
      root === "permissions" &&
      permission !== undefined &&
      permissionNames.includes(permission) &&
      principal !== undefined &&
      rest.length === 0;
    return isPrincipal ? { ...operation, value: principal.replace(/~1/g, "/").replace(/~0/g, "~") } : operation;
  });
  let result;
  try {
    result = applyJsonPatch({ data: record, permissions }, withValues);
  } catch (error) {
    if (error instanceof JsonPatchError) throw failed(error.message);
    throw error;
  }
  if (!isJsonObject(result) || !isJsonObject(result.data)) throw failed("data must remain an object");
  if (!isJsonObject(result.permissions)) throw failed("permissions must remain an object");
  const patched: Record<string, string[]> = {};
  for (const [name, principals] of Object.entries(result.permissions)) {
    if (!permissionNames.includes(name))
      throw ValidationError.single("body", `permissions.${name}`, `"${name}" is not one of ${permissionNames.join(", ")}`);
    if (!isJsonObject(principals) || !Object.keys(principals).every(isValidPrincipal))
      throw failed(`permissions.${name} must remain a set of principals`);
    const unknown = unknownSystemPrincipal(Object.keys(principals));
    if (unknown) throw ValidationError.single("body", `permissions.${name}`, unknown);
    patched[name] = Object.keys(principals);
  }
  return { data: result.data, permissions: patched };
}
