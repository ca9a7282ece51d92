/**
 * Kinto's resource tree (`/v1/buckets/...`, docs/kinto.md): served while a permission backend is
 * configured, over the record service every resource uses.
 */
import type { Container } from "inversify";
import type { HttpTree } from "../adapters/http/http-tree.js";
import { defaultBucketId } from "../adapters/system/default-bucket-id.js";
import type { ResourceKinds } from "../application/kinds/resource-kind-policy.js";
import type { RecordStore } from "../application/ports/record-store.js";
import type { UnitOfWork } from "../application/ports/unit-of-work.js";
import type { RecordService } from "../application/record-service.js";
import { DefaultBucket } from "../application/tree/default-bucket.js";
import { TreeResources } from "../application/tree/tree-places.js";
import { ajvSchemaCheck } from "../adapters/validation/json-schema-check.js";
import { anonymousRequester } from "../application/requester.js";
import { TreeRecords } from "../application/tree/tree-records.js";
import { InheritedAccess } from "../application/tree/inherited-access.js";
import type { AccessJournal } from "../application/ports/access-journal.js";
import type { CommittedChanges } from "../application/events.js";
import { treeGroupMembersValidator } from "../application/tree/tree-group-members.js";
import type { TreeResourceOptions } from "../application/tree/tree-resources.js";
import type { ResourceSpec } from "../application/extension.js";
import type { JsonValue } from "../domain/json.js";
import type { Settings } from "./settings.js";
import { TOKENS } from "./tokens.js";

/** The flat resource named `buckets` would share the tree's storage scope: refused while the tree is served. */
export function treeProblems(settings: Settings, specs: readonly ResourceSpec[]): string[] {
  if (!settings.permission || !specs.some((spec) => spec.name === "buckets")) return [];
  return [`resource "buckets" is Kinto's tree, built in while a permission backend is configured (docs/kinto.md): name yours otherwise`];
}

/** The root view's capabilities of the tree's features, as Kinto announces its plugins (clients look them up). */
export function treeCapabilities(settings: Settings, docs: string): Record<string, JsonValue> {
  if (!settings.permission) return {};
  const capabilities: Record<string, JsonValue> = {
    default_bucket: { description: "Each signed-in user has their own bucket, named default in URLs.", url: docs },
    permissions_endpoint: { description: "Every object the caller holds a permission on, at /v1/permissions.", url: docs },
  };
  if (settings.collectionSchemaValidation)
    capabilities.schema = { description: "Records of a collection with a JSON schema are validated against it.", url: docs };
  return capabilities;
}

/** What every list of the tree shares, from the settings. */
export function treeResourceOptions(settings: Settings): TreeResourceOptions {
  return { bucketCreatePrincipals: settings.bucketCreatePrincipals, validateGroup: treeGroupMembersValidator(settings.groupMaxMembers) };
}

export function bindTree(container: Container, settings: Settings): void {
  if (!settings.permission) return;
  const options = treeResourceOptions(settings);
  // One home for the tree's resources: the endpoints, sync (Memberships) and /permissions use it.
  container.bind(TOKENS.TreeResources).toResolvedValue(
    (store: RecordStore, kinds: ResourceKinds) => {
      const kind = kinds.shareable;
      const resources: TreeResources = new TreeResources(options, {
        check: ajvSchemaCheck(),
        validateRecords: settings.collectionSchemaValidation,
        async schemaOf(bucket, collection) {
          const collections = resources.of({ level: "collection", bucket });
          return (await store.get(kind.scope(anonymousRequester(), collections), collection))?.data.schema;
        },
      });
      return resources;
    },
    [TOKENS.RecordStore, TOKENS.ResourceKinds],
  );
  container.bind(TOKENS.Tree).toResolvedValue(
    (
      records: RecordService,
      store: RecordStore,
      unitOfWork: UnitOfWork,
      kinds: ResourceKinds,
      journal: AccessJournal,
      changes: CommittedChanges,
      resources: TreeResources,
    ): HttpTree => {
      const kind = kinds.shareable;
      const tree = new TreeRecords({
        records,
        store,
        unitOfWork,
        kind,
        resources,
        inherited: new InheritedAccess({ journal, store, kind, resources, touched: (event) => changes.scopeTouched(event) }),
      });
      return {
        resources,
        records: tree,
        defaultBucket: new DefaultBucket({
          records: tree,
          resources,
          options,
          bucketIdOf: (userId) => defaultBucketId(settings.defaultBucketHmacSecret, userId),
        }),
      };
    },
    [
      TOKENS.RecordService,
      TOKENS.RecordStore,
      TOKENS.UnitOfWork,
      TOKENS.ResourceKinds,
      TOKENS.AccessJournal,
      TOKENS.CommittedChanges,
      TOKENS.TreeResources,
    ],
  );
}
