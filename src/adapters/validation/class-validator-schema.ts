/**
 * A record schema written as a class-validator class: the validator Tessera runs on every write,
 * and a JSON Schema of the same class for the OpenAPI document. The schema is read from
 * class-validator's metadata storage (never from `design:type`, which tsx does not emit), so it
 * knows only the decorators mapped below; the others still validate but are left out of it.
 */
import { getMetadataStorage, validate, type ValidationError as ClassValidationError } from "class-validator";
import type { ValidationDetail } from "../../domain/errors.js";
import type { JsonObject, JsonValue } from "../../domain/json.js";
import type { RecordValidator } from "../../application/resources.js";

type ValidationMetadata = ReturnType<ReturnType<typeof getMetadataStorage>["getTargetValidationMetadatas"]>[number];

/** A class whose instances class-validator checks; it must construct without arguments. */
export type RecordClass = new () => object;

export interface ClassValidatorSchema {
  readonly validate: RecordValidator;
  readonly schema: JsonObject;
}

export function classValidatorSchema(recordClass: RecordClass): ClassValidatorSchema {
  return { validate: classValidator(recordClass), schema: jsonSchemaOf(recordClass) };
}

function classValidator(recordClass: RecordClass): RecordValidator {
  const declared = new Set(metadataOf(recordClass).map((entry) => entry.propertyName));
  return async (data) => {
    const errors = await validate(instanceOf(recordClass, data), {
      whitelist: true,
      forbidNonWhitelisted: true,
      forbidUnknownValues: true,
    });
    const details = errors.flatMap((error) => detailsOf(error, "data"));
    // class-validator's whitelist looks keys up in a plain object, so `__proto__` slips through.
    for (const key of Object.keys(data)) {
      if (!declared.has(key) && !details.some((d) => d.name === `data.${key}`))
        details.push({ location: "body", name: `data.${key}`, description: `property ${key} should not exist` });
    }
    return details;
  };
}

function metadataOf(recordClass: RecordClass): ValidationMetadata[] {
  return getMetadataStorage().getTargetValidationMetadatas(recordClass, "", false, false);
}

/**
 * The data as an instance of the class. Own properties are defined rather than assigned, so
 * a `__proto__` key from the JSON body stays a plain (and then unknown) field.
 */
function instanceOf(recordClass: RecordClass, data: JsonObject): object {
  const instance = new recordClass();
  for (const [key, value] of Object.entries(data)) {
    Object.defineProperty(instance, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return instance;
}

/** One detail per failed constraint, nested properties named by their dotted path. */
function detailsOf(error: ClassValidationError, parent: string): ValidationDetail[] {
  const name = error.property ? `${parent}.${error.property}` : parent;
  const own = Object.values(error.constraints ?? {}).map((description): ValidationDetail => ({ location: "body", name, description }));
  return [...own, ...(error.children ?? []).flatMap((child) => detailsOf(child, name))];
}

type SchemaRule = (schema: JsonObject, constraints: readonly unknown[]) => void;

/** class-validator decorator names and what each says in JSON Schema. */
const RULES: Readonly<Record<string, SchemaRule>> = {
  isString: (s) => void (s.type = "string"),
  isInt: (s) => void (s.type = "integer"),
  isNumber: (s) => void (s.type = "number"),
  isBoolean: (s) => void (s.type = "boolean"),
  isArray: (s) => void (s.type = "array"),
  isObject: (s) => void (s.type = "object"),
  maxLength: (s, [max]) => numeric(s, "maxLength", max),
  minLength: (s, [min]) => numeric(s, "minLength", min),
  max: (s, [max]) => numeric(s, "maximum", max),
  min: (s, [min]) => numeric(s, "minimum", min),
  isIn: (s, [values]) => {
    if (Array.isArray(values)) s.enum = values.filter(isJsonValue);
  },
};

function numeric(schema: JsonObject, keyword: string, value: unknown): void {
  if (typeof value === "number") schema[keyword] = value;
}

function isJsonValue(value: unknown): value is JsonValue {
  return value === null || ["string", "number", "boolean"].includes(typeof value);
}

/** An object schema: one property per decorated field, required unless `@IsOptional()`. */
function jsonSchemaOf(recordClass: RecordClass): JsonObject {
  const metadata = metadataOf(recordClass);
  const properties: Record<string, JsonObject> = {};
  const optional = new Set<string>();
  for (const entry of metadata) {
    const property = (properties[entry.propertyName] ??= {});
    if (entry.name === "isOptional") optional.add(entry.propertyName);
    const rule = entry.name === undefined ? undefined : RULES[entry.name];
    if (!rule) continue;
    // `each: true` constrains the items of an array, not the array itself.
    const target = entry.each ? itemsOf(property) : property;
    rule(target, Array.isArray(entry.constraints) ? entry.constraints : []);
  }
  const required = Object.keys(properties).filter((name) => !optional.has(name));
  return { type: "object", properties, required, additionalProperties: false };
}

function itemsOf(property: JsonObject): JsonObject {
  property.type ??= "array";
  const items = property.items;
  if (items !== null && typeof items === "object" && !Array.isArray(items)) return items;
  const created: JsonObject = {};
  property.items = created;
  return created;
}
