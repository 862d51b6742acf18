/**
 * The URL of an initialized, empty PGlite cluster (a gzipped tarball) bundled as an asset of the
 * app: `flow-pglite-seed` is an alias the app's Vite config points at the file
 * node/store/pglite-seed.ts makes. A first visit loads it instead of running initdb.
 */
declare module "flow-pglite-seed?url" {
  const url: string;
  export default url;
}
