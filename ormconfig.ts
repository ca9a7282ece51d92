/**
 * The DataSource of TypeORM's migration CLI (`typeorm migration:show|run|revert -d ormconfig.ts`),
 * built from the same settings as the service: TESSERA_STORAGE_URL (or DATABASE_URL) and
 * TESSERA_STORAGE_PASSWORD_FILE. The service itself runs these migrations with `tessera migrate`.
 */
import "reflect-metadata";
import { DataSource } from "typeorm";
import { postgresDataSourceOptions } from "./src/adapters/postgres/postgres-data-source.js";
import { urlWithPassword } from "./src/adapters/postgres/postgres-url.js";

const url = process.env.TESSERA_STORAGE_URL ?? process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";

export default new DataSource(postgresDataSourceOptions(urlWithPassword(url, process.env.TESSERA_STORAGE_PASSWORD_FILE), { max: 2 }));
