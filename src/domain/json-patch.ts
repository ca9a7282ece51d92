/** JSON Patch (RFC 6902) on JSON values: operation shape checks and their application. */
import { ValidationError, type ValidationDetail } from "./errors.js";
import { isJsonObject, jsonEqual, type JsonObject, type JsonValue } from "./json.js";

export const JSON_PATCH_OPS = ["test", "add", "remove", "replace", "move", "copy"] as const;
type JsonPatchOp = (typeof JSON_PATCH_OPS)[number];

export interface JsonPatchOperation {
  readonly op: JsonPatchOp;
  readonly path: string;
  readonly from?: string;
  readonly value?: JsonValue;
}

/** An operation that cannot be applied to the document (missing target, failed test…). */
export class JsonPatchError extends Error {}

const OPERATION_KEYS = new Set(["op", "path", "from", "value"]);

/** The body of a JSON Patch request: a list of operations, each checked for its shape (400 otherwise). */
export function parseJsonPatch(body: unknown): JsonPatchOperation[] {
  if (!Array.isArray(body)) throw ValidationError.single("body", null, "JSON Patch body must be a list of operations");
  const problems: ValidationDetail[] = [];
  const bad = (name: string, description: string) => problems.push({ location: "body", name, description });
  body.forEach((entry: unknown, i) => {
    if (!isJsonObject(entry)) return bad(String(i), "each operation must be an object");
    for (const key of Object.keys(entry)) if (!OPERATION_KEYS.has(key)) bad(`${i}.${key}`, `Unrecognized key "${key}"`);
    if (!(JSON_PATCH_OPS as readonly unknown[]).includes(entry.op))
      bad(`${i}.op`, `${JSON.stringify(entry.op ?? null)} is not one of ${JSON_PATCH_OPS.join(", ")}`);
    for (const key of ["path", "from"]) {
      const pointer = entry[key];
      if (pointer === undefined && key === "from") continue;
      if (typeof pointer !== "string" || !pointer.startsWith("/")) bad(`${i}.${key}`, `${key} must be a JSON pointer starting with /`);
    }
  });
  if (problems.length > 0) throw new ValidationError(problems);
  return body as JsonPatchOperation[];
}

/** What `copy` operations may add in all: a few copies could otherwise double the document each time. */
const MAX_COPIED_CHARACTERS = 1_048_576;

/** The operations applied in order to a copy of `document`; the first that fails throws a JsonPatchError. */
export function applyJsonPatch(document: JsonValue, operations: readonly JsonPatchOperation[]): JsonValue {
  let root = structuredClone(document);
  let copied = 0;
  for (const operation of operations) {
    if (operation.op === "copy") {
      copied += JSON.stringify(get(root, operation.from ?? "", "copy")).length;
      if (copied > MAX_COPIED_CHARACTERS) throw new JsonPatchError(`copy operations may add at most ${MAX_COPIED_CHARACTERS} characters`);
    }
    root = applyOne(root, operation);
  }
  return root;
}

function applyOne(root: JsonValue, operation: JsonPatchOperation): JsonValue {
  const { op, path } = operation;
  switch (op) {
    case "add":
      return add(root, path, required(operation, "value"));
    case "remove":
      return remove(root, path);
    case "replace": {
      const value = required(operation, "value");
      get(root, path, "replace");
      // The root pointer "" always exists: replacing it replaces the whole document (RFC 6902 §4.3).
      return path === "" ? value : add(remove(root, path), path, value);
    }
    case "move": {
      const from = required(operation, "from");
      if (path.startsWith(`${from}/`)) throw new JsonPatchError(`cannot move ${from} into its own child ${path}`);
      const value = get(root, from, "move");
      return add(remove(root, from), path, value);
    }
    case "copy":
      return add(root, path, structuredClone(get(root, required(operation, "from"), "copy")));
    case "test": {
      const expected = required(operation, "value");
      const actual = get(root, path, "test");
      if (!jsonEqual(actual, expected))
        throw new JsonPatchError(`${JSON.stringify(actual)} is not equal to tested value ${JSON.stringify(expected)}`);
      return root;
    }
  }
}

function required<K extends "value" | "from">(operation: JsonPatchOperation, key: K): NonNullable<JsonPatchOperation[K]> {
  const value = operation[key];
  if (value === undefined) throw new JsonPatchError(`The operation does not contain a '${key}' member`);
  return value;
}

function tokens(pointer: string): string[] {
  return pointer === ""
    ? []
    : pointer
        .slice(1)
        .split("/")
        .map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"));
}

/** Array index of a token: digits without leading zeros, below `limit` (inclusive when adding). */
function arrayIndex(token: string, length: number, adding: boolean): number {
  if (adding && token === "-") return length;
  const index = /^(0|[1-9]\d*)$/.test(token) ? Number(token) : NaN;
  if (!(index <= (adding ? length : length - 1))) throw new JsonPatchError(`invalid array index '${token}'`);
  return index;
}

/** The container holding the pointer's last token, and that token. */
function parentOf(root: JsonValue, pointer: string): { parent: JsonValue; key: string } {
  const path = tokens(pointer);
  const key = path.pop() as string;
  let parent = root;
  for (const token of path) parent = child(parent, token, pointer);
  return { parent, key };
}

function child(container: JsonValue, token: string, pointer: string): JsonValue {
  const found = Array.isArray(container)
    ? container[arrayIndex(token, container.length, false)]
    : isJsonObject(container) && Object.hasOwn(container, token)
      ? container[token]
      : undefined;
  if (found !== undefined) return found;
  throw new JsonPatchError(`member '${token}' not found (${pointer})`);
}

function get(root: JsonValue, pointer: string, op: string): JsonValue {
  try {
    return tokens(pointer).reduce((node, token) => child(node, token, pointer), root);
  } catch {
    throw new JsonPatchError(`can't ${op} a non-existent object '${pointer}'`);
  }
}

function add(root: JsonValue, pointer: string, value: JsonValue): JsonValue {
  if (pointer === "") return value;
  const { parent, key } = parentOf(root, pointer);
  if (Array.isArray(parent)) parent.splice(arrayIndex(key, parent.length, true), 0, value);
  else if (isJsonObject(parent)) setOwn(parent, key, value);
  else throw new JsonPatchError(`cannot add '${key}' to a non-container (${pointer})`);
  return root;
}

function remove(root: JsonValue, pointer: string): JsonValue {
  if (pointer === "") throw new JsonPatchError("can't remove the whole document");
  get(root, pointer, "remove");
  const { parent, key } = parentOf(root, pointer);
  if (Array.isArray(parent)) parent.splice(arrayIndex(key, parent.length, false), 1);
  else delete (parent as JsonObject)[key];
  return root;
}

/** An own property even for `__proto__`, which plain assignment would turn into a prototype change. */
function setOwn(target: JsonObject, key: string, value: JsonValue): void {
  Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}
