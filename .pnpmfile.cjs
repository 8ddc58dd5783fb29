// pnpm's hook on the manifests of dependencies, as they are resolved.
//
// @prisma/client declares `prisma` (the CLI) and `typescript` as optional peer dependencies, and
// pnpm resolves an optional peer wherever the workspace has it: @folio/db has both as
// devDependencies (the CLI generates the client at build time), so @prisma/client was linked to
// them, and `pnpm deploy --prod` (the image) carried the CLI, Prisma Studio and TypeScript with
// it, some 200 MB that never run. At run time the client needs neither: the generated client and
// @prisma/client's runtime are all it loads.
const UNUSED_PEERS = { "@prisma/client": ["prisma", "typescript"] };

module.exports = {
  hooks: {
    /** Drops the optional peer dependencies of UNUSED_PEERS from their packages' manifests. */
    readPackage(manifest) {
      for (const name of UNUSED_PEERS[manifest.name] ?? []) {
        delete manifest.peerDependencies?.[name];
        delete manifest.peerDependenciesMeta?.[name];
      }
      return manifest;
    },
  },
};
