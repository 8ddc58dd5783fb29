/**
 * The app's views and their paths. The build lists the paths in `routes.json`, and the server
 * answers each of them (and the paths below them) with the app's page.
 */
export const ROUTES = {
  projects: "/",
  newFolder: "/folders/new",
  connection: "/connection",
} as const;

/** The name of a view. */
export type RouteName = keyof typeof ROUTES;

/** The view a path shows; undefined for a path that is none of the app's. */
export function routeOf(path: string): RouteName | undefined {
  const normalised = path.length > 1 ? path.replace(/\/+$/, "") : path;
  return (Object.keys(ROUTES) as RouteName[]).find((name) => ROUTES[name] === normalised);
}
