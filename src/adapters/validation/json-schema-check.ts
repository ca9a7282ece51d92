/**
 * JSON Schema (draft-07, as Kinto's collection schemas) checks with Ajv: whether a collection's
 * `schema` is a schema, and a record's data against it. Compiled schemas are kept by their text,
 * a few hundred at most, so a schema used by every write is compiled once.
 */
import { Ajv } from "ajv";
import type { ValidationDetail } from "../../domain/errors.js";
import type { JsonObject } from "../../domain/json.js";
import type { SchemaCheck } from "../../application/tree/collection-schema.js";

const KEPT = 256;

export function ajvSchemaCheck(): SchemaCheck {
  const ajv = new Ajv({ allErrors: false, strict: false });
  const compiled = new Map<string, ReturnType<Ajv["compile"]>>();
  const compile = (schema: JsonObject) => {
    const text = JSON.stringify(schema);
    let validate = compiled.get(text);
    if (!validate) {
      validate = ajv.compile(schema);
      if (compiled.size >= KEPT) compiled.delete(compiled.keys().next().value!);
      compiled.set(text, validate);
    }
    return validate;
  };
  return {
    schemaProblem(schema) {
      if (!ajv.validateSchema(schema)) return ajv.errorsText(ajv.errors);
      try {
        compile(schema);
        return undefined;
      } catch (error) {
        return error instanceof Error ? error.message : String(error);
      }
    },
    recordProblems(schema, data): ValidationDetail[] {
      const validate = compile(schema);
      if (validate(data)) return [];
      return (validate.errors ?? []).map((error) => {
        const params = error.params as { missingProperty?: unknown; additionalProperty?: unknown };
        if (typeof params.missingProperty === "string")
          return { location: "body", name: params.missingProperty, description: `'${params.missingProperty}' is a required property` };
        if (typeof params.additionalProperty === "string")
          return { location: "body", name: params.additionalProperty, description: `'${params.additionalProperty}' was unexpected` };
        const name = error.instancePath.split("/").filter(Boolean).at(-1) ?? "data";
        return { location: "body", name, description: `${name} ${error.message ?? "is invalid"}` };
      });
    },
  };
}
