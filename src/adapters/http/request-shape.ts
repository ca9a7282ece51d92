/**
 * Request-body shapes written as class-validator classes. Each class gets exactly one constraint
 * per property, carrying the project's own message, so a failed property yields one detail named
 * like the hand-written checks did (`prefix.property`).
 */
import { ValidateBy, validateSync, type ValidationArguments, type ValidationOptions } from "class-validator";
import type { ValidationDetail } from "../../domain/errors.js";

/** A property decorator: `accepts` decides, `message` says why not (it may quote the value). */
export function Shape(
  name: string,
  accepts: (value: unknown) => boolean,
  message: string | ((args: ValidationArguments) => string),
): PropertyDecorator {
  const options: ValidationOptions = { message };
  return ValidateBy({ name, validator: { validate: (value: unknown) => accepts(value) } }, options);
}

/** Body details of `instance`'s failed properties, in declaration order; `prefix` names the parent (`requests.0`). */
export function shapeDetails(instance: object, prefix: string | null): ValidationDetail[] {
  return validateSync(instance, { forbidUnknownValues: false }).flatMap((error) =>
    Object.values(error.constraints ?? {}).map((description): ValidationDetail => ({
      location: "body",
      name: prefix === null ? error.property : `${prefix}.${error.property}`,
      description,
    })),
  );
}
