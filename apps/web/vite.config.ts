import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { brotliCompress, constants, gzip } from "node:zlib";
import react from "@vitejs/plugin-react";
import { defineConfig, type Plugin } from "vite";
import { ROUTES } from "./src/routes.ts";

/** The API that `pnpm dev` forwards to: a Folio server started with `npm start`. */
const api = process.env.FOLIO_API_URL ?? "http://127.0.0.1:8080";

export default defineConfig({
  plugins: [react(), routesFile(), precompress()],
  build: {
    // Source maps stay out of the served folder: nothing but the app is published.
    sourcemap: false,
    assetsInlineLimit: 0,
  },
  server: {
    host: "127.0.0.1",
    // The app calls the API on its own origin; in development Vite forwards those calls.
    proxy: {
      "/api/": api,
      "^/folio\\.v1\\.": api,
    },
  },
});

/** Emits `routes.json`: the app's own paths, which the server answers with `index.html`. */
function routesFile(): Plugin {
  return {
    name: "folio-routes-file",
    generateBundle() {
      this.emitFile({
        type: "asset",
        fileName: "routes.json",
        source: `${JSON.stringify(Object.values(ROUTES))}\n`,
      });
    },
  };
}

const COMPRESSIBLE = /\.(?:html|js|css|svg|json|txt)$/;
/** Smaller files gain nothing from compression. */
const MIN_BYTES = 1024;

/** Writes `.br` and `.gz` next to each text file, for the server to send to clients that accept them. */
function precompress(): Plugin {
  return {
    name: "folio-precompress",
    apply: "build",
    async writeBundle(options, bundle) {
      const dir = options.dir ?? "dist";
      await Promise.all(
        Object.values(bundle).map(async (output) => {
          if (!COMPRESSIBLE.test(output.fileName)) return;
          const source = output.type === "chunk" ? output.code : output.source;
          const bytes = typeof source === "string" ? Buffer.from(source) : Buffer.from(source);
          if (bytes.length < MIN_BYTES) return;
          const file = join(dir, output.fileName);
          await writeFile(`${file}.gz`, await promisify(gzip)(bytes, { level: 9 }));
          await writeFile(
            `${file}.br`,
            await promisify(brotliCompress)(bytes, {
              params: { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY },
            }),
          );
        }),
      );
    },
  };
}
