/**
 * Kinto's collection schema: a collection's `data.schema` must be a JSON Schema; with
 * `experimental_collection_schema_validation`, the records written in it are checked against it
 * (their `id`, `last_modified` and `schema` fields aside, unless the schema names `id`).
 */
import type { ValidationDetail } from "../../domain/errors.js";
import type { JsonObject, JsonValue } from "../../domain/json.js";
import type { RecordValidator } from "../resources.js";

export interface SchemaCheck {
  /** Why `schema` is not a JSON Schema, or undefined when it is one. */
  schemaProblem(schema: JsonObject): string | undefined;
  /** What is wrong with `data` under `schema` (none when valid). */
  recordProblems(schema: JsonObject, data: JsonObject): ValidationDetail[];
}

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A collection's data: its `schema`, when given, is a JSON Schema object. */
export function collectionSchemaValidator(check: SchemaCheck): RecordValidator {
  return (data) => {
    const schema = data.schema;
    if (schema === undefined) return [];
    const problem = isObject(schema) ? check.schemaProblem(schema) : "schema must be a JSON object";
    return problem === undefined ? [] : [{ location: "body", name: "data.schema", description: problem }];
  };
}

/** A record's data under the schema of its collection (`schemaOf` reads it), when that collection has one. */
export function recordSchemaValidator(check: SchemaCheck, schemaOf: () => Promise<JsonValue | undefined>): RecordValidator {
  return async (data) => {
    const schema = await schemaOf();
    if (!isObject(schema) || Object.keys(schema).length === 0) return [];
    const namesId = isObject(schema.properties) && "id" in schema.properties;
    const checked: JsonObject = { ...data };
    delete checked.schema;
    if (!namesId) delete checked.id;
    const required = Array.isArray(schema.required)
      ? schema.required.filter((n) => n !== "schema" && n !== "last_modified" && (namesId || n !== "id"))
      : undefined;
    return check.recordProblems(required === undefined ? schema : { ...schema, required }, checked);
  };
}
