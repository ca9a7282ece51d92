/** Where a tree resource's objects are, read back from its name; and the resources of each place. */
import type { JsonValue } from "../../domain/json.js";
import { LEVEL_SEGMENT, type TreeLevel, type TreePlace } from "../../domain/tree.js";
import type { RecordValidator, ResourceDefinition } from "../resources.js";
import { collectionSchemaValidator, recordSchemaValidator, type SchemaCheck } from "./collection-schema.js";
import { treeResource, type TreeResourceOptions } from "./tree-resources.js";

const LEVEL_BY_SEGMENT = new Map(Object.entries(LEVEL_SEGMENT).map(([level, segment]) => [segment, level as TreeLevel]));

/** The place of a tree resource (`buckets/b/collections/c/records` → records of c in b). */
export function placeOf(resource: ResourceDefinition): TreePlace {
  const parts = resource.name.split("/");
  const level = LEVEL_BY_SEGMENT.get(parts[parts.length - 1]!);
  if (!level) throw new Error(`not a resource of the tree: ${resource.name}`);
  return { level, bucket: parts[1], collection: parts[3] };
}

/** Resources kept built at most (the oldest built goes first): what they hold derives from the place alone. */
const KEPT_RESOURCES = 1024;

/** Collections' JSON schemas: checked always, and records checked against them when `validateRecords`. */
export interface CollectionSchemas {
  readonly check: SchemaCheck;
  readonly validateRecords: boolean;
  /** The `schema` of a collection's data (undefined when missing or without one). */
  schemaOf(bucket: string, collection: string): Promise<JsonValue | undefined>;
}

/** The resource of each place, with the settings every place shares. */
export class TreeResources {
  constructor(
    private readonly options: TreeResourceOptions,
    private readonly schemas?: CollectionSchemas,
  ) {}

  /** Built once per place while it is in use (a record read asks for its list's on every request). */
  private readonly built = new Map<string, ResourceDefinition>();

  of(place: TreePlace): ResourceDefinition {
    const key = `${place.level}\u0000${place.bucket ?? ""}\u0000${place.collection ?? ""}`;
    const known = this.built.get(key);
    if (known) return known;
    const built = treeResource(place, this.options, this.validatorOf(place));
    if (this.built.size >= KEPT_RESOURCES) this.built.delete(this.built.keys().next().value!);
    this.built.set(key, built);
    return built;
  }

  private validatorOf(place: TreePlace): RecordValidator | undefined {
    const schemas = this.schemas;
    if (!schemas) return undefined;
    if (place.level === "collection") return collectionSchemaValidator(schemas.check);
    if (place.level !== "record" || !schemas.validateRecords) return undefined;
    return recordSchemaValidator(schemas.check, () => schemas.schemaOf(place.bucket!, place.collection!));
  }
}
