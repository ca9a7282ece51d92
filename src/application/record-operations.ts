/** The record flows the HTTP endpoints call: the same for a flat resource (RecordService) and a list of the tree (TreeRecords). */
import type { RecordService } from "./record-service.js";

export type RecordOperations = Pick<RecordService, "list" | "count" | "create" | "get" | "replace" | "update" | "delete" | "deleteAll">;
