import { rmSync } from "node:fs";
import { mkdtemp, readFile, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { gzip } from "node:zlib";

/** A file of the docs page, written once to the directory it is served from. */
export interface DocsFile {
  /** The file's name in the directory, which is its name below its URL's directory. */
  readonly name: string;
  /** Its contents, or the path of a file on disk to link to (rather than copy) and read. */
  readonly body: () => string | { readonly path: string };
}

/** Bodies smaller than this are sent as they are: compressing them saves nothing worth the time. */
const GZIP_MIN_BYTES = 1024;

const gzipBytes = promisify(gzip);

/** Directories written by this process, removed when it exits. */
const written = new Set<string>();

/**
 * Writes the files to a new directory of their own, each with a gzipped sibling (`name.gz`) when
 * it is large enough, for a static file server to send to clients that accept gzip.
 */
export async function writeDocsFiles(files: readonly DocsFile[]): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "openapi-docs-"));
  if (written.size === 0) {
    process.once("exit", () => {
      for (const path of written) rmSync(path, { recursive: true, force: true });
    });
  }
  written.add(dir);
  for (const file of files) {
    const body = file.body();
    let bytes: Buffer;
    if (typeof body === "string") {
      bytes = Buffer.from(body);
      await writeFile(join(dir, file.name), bytes);
    } else {
      bytes = await readFile(body.path);
      await symlink(body.path, join(dir, file.name));
    }
    if (bytes.length >= GZIP_MIN_BYTES) {
      await writeFile(join(dir, `${file.name}.gz`), await gzipBytes(bytes));
    }
  }
  return dir;
}
