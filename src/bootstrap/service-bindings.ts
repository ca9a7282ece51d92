/**
 * The services of the composition root, each built once over the port tokens: the kinds, the
 * committed-change announcer, SharedRecords (the technology's own, else the portable one), the
 * record service and the live feed.
 */
import type { Container } from "inversify";
import type { Logger } from "pino";
import { Authorizer } from "../application/authorizer.js";
import { CONTENTION_DEADLINE_MS } from "../application/contention-retry.js";
import { CommittedChanges, type ChangeEvents } from "../application/events.js";
import type { ResourceKinds } from "../application/kinds/resource-kind-policy.js";
import { resourceKinds } from "../application/kinds/resource-kinds.js";
import { LiveFeed } from "../application/feed/live-feed.js";
import { NO_PERMISSION_STORE } from "../application/no-permission-store.js";
import { PaginationTokens } from "../application/pagination-token.js";
import type { ChangeBroadcast } from "../application/ports/change-broadcast.js";
import type { AccessJournal } from "../application/ports/access-journal.js";
import type { IdGenerator } from "../application/ports/clock.js";
import type { PermissionStore } from "../application/ports/permission-store.js";
import type { PrincipalsWithCheck } from "../application/ports/principals-with-check.js";
import type { RecordStore } from "../application/ports/record-store.js";
import type { PrincipalFence } from "../application/ports/principal-fence.js";
import type { SharedRecords } from "../application/ports/shared-records.js";
import type { UnitOfWork } from "../application/ports/unit-of-work.js";
import { RecordService } from "../application/record-service.js";
import type { WriteConsequencesOf } from "../application/resources.js";
import { AccessService } from "../application/access/access-service.js";
import { CHAIN_BOUNDS } from "../application/access/group-chains.js";
import { PortableSharedRecords } from "../application/shared-records/portable-shared-records.js";
import type { Settings } from "./settings.js";
import type { TreeResources } from "../application/tree/tree-places.js";
import { TOKENS } from "./tokens.js";

const permissionStore = { serviceIdentifier: TOKENS.PermissionStore, optional: true } as const;

/** Decided once, here: the SharedRecords a technology binds (records and ACEs in one database), else the portable one. */
export function bindSharedRecords(container: Container): void {
  if (container.isBound(TOKENS.SharedRecords)) return;
  container
    .bind(TOKENS.SharedRecords)
    .toResolvedValue(
      (records: RecordStore, journal: AccessJournal, permissions: PermissionStore | undefined, unitOfWork: UnitOfWork) =>
        new PortableSharedRecords(records, journal, permissions ?? NO_PERMISSION_STORE, unitOfWork),
      [TOKENS.RecordStore, TOKENS.AccessJournal, permissionStore, TOKENS.UnitOfWork],
    );
}

export function bindServices(container: Container, settings: Settings): void {
  container
    .bind(TOKENS.CommittedChanges)
    .toResolvedValue(
      (events: ChangeEvents, unitOfWork: UnitOfWork) => new CommittedChanges(events, unitOfWork),
      [TOKENS.ChangeEvents, TOKENS.UnitOfWork],
    );
  // The record service and the live feed decide views with the same kinds (same authorizer, same backend).
  container.bind(TOKENS.ResourceKinds).toResolvedValue(
    (permissions: PermissionStore | undefined, principalsWithCheck: PrincipalsWithCheck | undefined): ResourceKinds =>
      resourceKinds({
        authorizer: new Authorizer(permissions ?? NO_PERMISSION_STORE),
        ...(principalsWithCheck ? { principalsWithCheck } : {}),
      }),
    [permissionStore, { serviceIdentifier: TOKENS.PrincipalsWithCheck, optional: true }],
  );
  container.bind(TOKENS.RecordService).toResolvedValue(
    (
      records: RecordStore,
      journal: AccessJournal,
      shared: SharedRecords,
      kinds: ResourceKinds,
      unitOfWork: UnitOfWork,
      ids: IdGenerator,
      changes: CommittedChanges,
      consequencesOf: WriteConsequencesOf | undefined,
    ) =>
      new RecordService({
        records,
        journal,
        shared,
        kinds,
        unitOfWork,
        ids,
        tokens: new PaginationTokens(settings.userIdHmacSecret),
        changes,
        contentionDeadlineMs: CONTENTION_DEADLINE_MS,
        // A group's members hold its principal (docs/api.md, "Groups").
        ...(consequencesOf ? { consequencesOf } : {}),
      }),
    [
      TOKENS.RecordStore,
      TOKENS.AccessJournal,
      TOKENS.SharedRecords,
      TOKENS.ResourceKinds,
      TOKENS.UnitOfWork,
      TOKENS.IdGenerator,
      TOKENS.CommittedChanges,
      { serviceIdentifier: TOKENS.WriteConsequences, optional: true },
    ],
  );
}

/** Explain, readers and `/permissions`: the record service's kinds and SharedRecords, so they decide as it does. */
export function bindAccessService(container: Container, settings: Settings): void {
  container.bind(TOKENS.AccessService).toResolvedValue(
    (
      records: RecordStore,
      shared: SharedRecords,
      kinds: ResourceKinds,
      permissions: PermissionStore | undefined,
      tree: TreeResources | undefined,
    ) =>
      new AccessService({
        records,
        shared,
        kinds,
        permissions: permissions ?? NO_PERMISSION_STORE,
        tokens: new PaginationTokens(settings.userIdHmacSecret),
        chainBounds: { ...CHAIN_BOUNDS, maxDepth: settings.groupMaxDepth },
        // Kinto's tree is served beside the resources while a permission backend is configured.
        ...(tree ? { tree: { buckets: tree.of({ level: "bucket" }) } } : {}),
      }),
    [
      TOKENS.RecordStore,
      TOKENS.SharedRecords,
      TOKENS.ResourceKinds,
      permissionStore,
      { serviceIdentifier: TOKENS.TreeResources, optional: true },
    ],
  );
}

export function bindLiveFeed(container: Container, settings: Settings): void {
  container
    .bind(TOKENS.LiveFeed)
    .toResolvedValue(
      async (
        records: RecordService,
        events: ChangeEvents,
        broadcast: ChangeBroadcast,
        logger: Logger,
        store: RecordStore,
        journal: AccessJournal,
        shared: SharedRecords,
        kinds: ResourceKinds,
        fence: PrincipalFence,
      ) => {
        const feed = new LiveFeed({
          records,
          store,
          journal,
          shared,
          kinds,
          events,
          broadcast,
          fence,
          keepAliveMs: settings.feedKeepaliveSeconds * 1000,
          log: (error: unknown, message: string) => logger.error({ err: error }, message),
        });
        await feed.start();
        return feed;
      },
      [
        TOKENS.RecordService,
        TOKENS.ChangeEvents,
        TOKENS.ChangeBroadcast,
        TOKENS.Logger,
        TOKENS.RecordStore,
        TOKENS.AccessJournal,
        TOKENS.SharedRecords,
        TOKENS.ResourceKinds,
        TOKENS.PrincipalFence,
      ],
    )
    .onDeactivation((feed) => feed.close());
}
