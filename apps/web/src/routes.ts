/**
 * The app's views and their paths. The build lists the paths in `routes.json`, and the server
 * answers each of them (and the paths below them) with the app's page: `/folders/<id>`, a
 * folder's own page, loads from a shared link or a reload as `/folders` does.
 */
export const ROUTES = {
  projects: "/",
  folders: "/folders",
  newFolder: "/folders/new",
  connection: "/connection",
} as const;

/** The name of a view. */
export type RouteName = keyof typeof ROUTES;

/** The page of one folder: its details and its folders. */
export function folderPath(id: string): string {
  return `${ROUTES.folders}/${encodeURIComponent(id)}`;
}

/** The folder whose page `path` is, or undefined (the top level, or another view). */
export function folderIdOf(path: string): string | undefined {
  const match = /^\/folders\/([^/]+)\/*$/.exec(path);
  const segment = match?.[1];
  if (segment === undefined || `${ROUTES.folders}/${segment}` === ROUTES.newFolder) return undefined;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** The view a path shows; undefined for a path that is none of the app's. */
export function routeOf(path: string): RouteName | undefined {
  const normalised = path.length > 1 ? path.replace(/\/+$/, "") : path;
  if (folderIdOf(normalised) !== undefined) return "folders";
  return (Object.keys(ROUTES) as RouteName[]).find((name) => ROUTES[name] === normalised);
}
