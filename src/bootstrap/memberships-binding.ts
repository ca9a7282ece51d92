/** The membership use case, bound when a permission backend is: the one way principals' holders change. */
import type { Container } from "inversify";
import type { ChangeEvents } from "../application/events.js";
import type { ResourceKinds } from "../application/kinds/resource-kind-policy.js";
import { AccessStamps } from "../application/memberships/access-stamps.js";
import { Memberships } from "../application/memberships/memberships.js";
import type { PermissionStore } from "../application/ports/permission-store.js";
import type { AccessJournal } from "../application/ports/access-journal.js";
import type { UnitOfWork } from "../application/ports/unit-of-work.js";
import type { ResourceDefinition } from "../application/resources.js";
import type { RecordStore } from "../application/ports/record-store.js";
import type { TreeResources } from "../application/tree/tree-places.js";
import { treeReach } from "../application/tree/tree-reach.js";
import type { Settings } from "./settings.js";
import { TOKENS } from "./tokens.js";

/** `declared`: the resources of the configuration; where Kinto's tree is served, the lists of it a principal reaches count too. */
export function bindMemberships(container: Container, settings: Settings, declared: () => readonly ResourceDefinition[]): void {
  if (!container.isBound(TOKENS.PermissionStore)) return;
  // A technology whose permission backend joins the storage's transaction says so; elsewhere, changes are taken back by hand.
  if (!container.isBound(TOKENS.PermissionsShareUnitOfWork)) container.bind(TOKENS.PermissionsShareUnitOfWork).toConstantValue(false);
  container.bind(TOKENS.Memberships).toResolvedValue(
    (
      journal: AccessJournal,
      permissions: PermissionStore,
      kinds: ResourceKinds,
      events: ChangeEvents,
      unitOfWork: UnitOfWork,
      sharesTransaction: boolean,
      store: RecordStore,
      tree: TreeResources | undefined,
    ) => {
      const reached = tree && treeReach({ permissions, store, kind: kinds.shareable, resources: tree });
      const resources = async (principals: readonly string[]) => [...declared(), ...(reached ? await reached(principals) : [])];
      return new Memberships({
        permissions,
        unitOfWork,
        sharesTransaction,
        events,
        // Group changes reach `_since` and the feed as lost and gained access (docs/api.md, "Sync").
        stamps: new AccessStamps({
          journal,
          permissions,
          kinds,
          resources,
          touched: (scope, timestamp) => events.publishScopeTouched({ scope, timestamp }),
          maxRecords: settings.groupChangeMaxRecords,
        }),
      });
    },
    [
      TOKENS.AccessJournal,
      TOKENS.PermissionStore,
      TOKENS.ResourceKinds,
      TOKENS.ChangeEvents,
      TOKENS.UnitOfWork,
      TOKENS.PermissionsShareUnitOfWork,
      TOKENS.RecordStore,
      { serviceIdentifier: TOKENS.TreeResources, optional: true },
    ],
  );
}
