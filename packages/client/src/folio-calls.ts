import { type Folder, FolderService, type Project } from "@folio/proto";
import type { CallOptions, ServiceClient } from "./client-types.js";
import { FolioError } from "./errors.js";
import type { FolioService } from "./services.js";

/** A new folder: its name, and optionally its parent, colour and idempotency key. */
export interface CreateFolderInit {
  readonly name: string;
  readonly parentId?: string;
  readonly color?: string;
  /** Idempotency key (AIP-155); the client makes one when absent. */
  readonly requestId?: string;
}

/** Which projects to list. */
export interface ProjectFilters {
  readonly namePrefix?: string;
  readonly city?: string;
  readonly country?: string;
  readonly postalCode?: string;
  /** Projects per page (the server's default and maximum: 1000). */
  readonly pageSize?: number;
}

/** One page of projects, and the token of the next ("" on the last). */
export interface ProjectPage {
  readonly projects: Project[];
  readonly nextPageToken: string;
}

/**
 * The Folio API, the same whichever protocol carries it: every unary method of Folio's services
 * (`listProjects`, ...), `paged` iterators, `call`, and two shorthands. Failures are {@link FolioError}s.
 */
export type FolioClient = Omit<ServiceClient<FolioService>, "createFolder"> & {
  /** Creates a folder and returns it; retried safely (one idempotency key for every attempt). */
  createFolder(request: CreateFolderInit, options?: CallOptions): Promise<Folder>;
  /** Every project matching `filters`, page after page (each page's call has `options`). */
  projects(filters?: ProjectFilters, options?: CallOptions): AsyncGenerator<Project, void, undefined>;
};

/** Adds FolioClient's shorthands to a client of Folio's services, on top of its generic methods. */
export function withFolioCalls(client: ServiceClient<FolioService>): FolioClient {
  return {
    ...client,
    async createFolder(request, options) {
      const { folder } = await client.call(FolderService.method.createFolder, request, options);
      if (folder === undefined) throw FolioError.from(new Error("the response holds no folder"));
      return folder;
    },
    projects: (filters = {}, options = {}) => client.paged.listProjects(filters, options),
  };
}
