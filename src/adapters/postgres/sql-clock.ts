/** The database clock in epoch milliseconds: every process on one database agrees on it. */
export const NOW_MS = "floor(extract(epoch from clock_timestamp()) * 1000)::bigint";
