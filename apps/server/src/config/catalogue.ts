import { authSettings } from "./auth.js";
import { corsSettings } from "./cors.js";
import { databaseSettings } from "./database.js";
import { httpSettings } from "./http.js";
import { observabilitySettings } from "./observability.js";
import { rateLimitSettings } from "./rate-limit.js";
import { readReplicaSettings } from "./read-replica.js";
import { requestSettings, serverSettings } from "./server.js";
import { publicStreamSettings } from "./streams.js";
import type { SettingGroup } from "./variables.js";

/**
 * Every environment variable the server reads, grouped and in the order docs/configuration.md
 * lists them (that file is generated from these declarations: `pnpm --filter @folio/server docs:config`).
 */
export const settingGroups: readonly SettingGroup[] = [
  serverSettings,
  databaseSettings,
  readReplicaSettings,
  authSettings,
  rateLimitSettings,
  requestSettings,
  httpSettings,
  publicStreamSettings,
  corsSettings,
  observabilitySettings,
];
