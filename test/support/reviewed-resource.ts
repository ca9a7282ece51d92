/**
 * A shareable resource with its own bound permissions: `read` on a record is granted by `read` on
 * the record or by `review` on the collection, and `review` on the record grants nothing. Tests
 * of code that reads a record's ACL for the permissions bound on the record itself use it: under
 * the default bindings every name bound on a record is bound on its collection too, which hides
 * a read of the wrong ACL entries.
 */
import type { ResourceDefinition } from "../../src/application/resources.js";

export function reviewedVersionOf(resource: ResourceDefinition): ResourceDefinition {
  const collection = `/${resource.name}`;
  return {
    ...resource,
    permissions: [...new Set([...resource.permissions, "review"])],
    boundPermissions: (objectId, permission) =>
      objectId !== collection && permission === "read"
        ? [
            { objectId, permission: "read" },
            { objectId: collection, permission: "review" },
          ]
        : [{ objectId, permission }],
  };
}
