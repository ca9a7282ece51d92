/**
 * The publishing extension: every extension point of Tessera in one place. A `posts` resource
 * defined in code (schema, `publish` permission, view mapping, policy, root factory), an API-key
 * authentication policy, a staff group finder and a heartbeat check.
 */
import type { TesseraExtension } from "../../src/application/extension.js";
import type { HealthCheck } from "../../src/application/health-service.js";
import { classValidatorSchema } from "../../src/adapters/validation/class-validator-schema.js";
import { ApiKeyPolicy, API_KEYS_SETTING } from "./api-key-policy.js";
import { PostRecord } from "./post-record.js";
import { POST_VIEW_PERMISSIONS, postBoundPermissions, PUBLISH, publishingPolicy } from "./publishing-policy.js";
import { STAFF_SETTING, staffGroupFinder } from "./staff-group-finder.js";

export interface PublishingOptions {
  /** Whether the feed renderer that publishes posts is reachable; reported as `publishing_feed`. */
  readonly feedHealthy?: HealthCheck;
}

export function publishingExtension(options: PublishingOptions = {}): TesseraExtension {
  return {
    settings: [API_KEYS_SETTING, STAFF_SETTING],
    resources: [
      {
        name: "posts",
        kind: "shareable",
        extraPermissions: [PUBLISH],
        ...classValidatorSchema(PostRecord),
        viewPermissions: POST_VIEW_PERMISSIONS,
        authorization: publishingPolicy,
        boundPermissions: postBoundPermissions,
      },
    ],
    authenticationPolicies: { apikey: ({ settings }) => new ApiKeyPolicy(settings[API_KEYS_SETTING]) },
    groupFinder: staffGroupFinder,
    heartbeatChecks: { publishing_feed: options.feedHealthy ?? (() => Promise.resolve(true)) },
  };
}
