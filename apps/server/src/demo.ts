import type { Db } from "@folio/db";
import type { Logger } from "pino";

/** The organisation and user of development mode's printed token. */
export const DEMO_ORG_ID = "00000000-0000-4000-8000-00000000f011";
export const DEMO_USER_ID = "00000000-0000-4000-8000-0000000000a1";

const DEMO_PROJECTS = [
  {
    name: "Harbour Office Refit",
    street: "Kaistraße",
    houseNumber: "12a",
    postalCode: "40221",
    city: "Düsseldorf",
    country: "DE",
  },
  {
    name: "Riverside Library",
    street: "Quai de la Tournelle",
    houseNumber: "37",
    postalCode: "75005",
    city: "Paris",
    country: "FR",
  },
  {
    name: "Station Square Housing",
    street: "Stationsplein",
    houseNumber: "1",
    postalCode: "3511 ED",
    city: "Utrecht",
    country: "NL",
  },
];

/**
 * Gives a newcomer's first request something to show: a few projects for the demo org, only when
 * the database has no projects at all (so real data is never mixed with demo rows).
 */
export async function seedDemoProjects(db: Db, logger: Logger): Promise<void> {
  if (!(await db.projects.isEmpty())) return;
  await db.projects.insert(DEMO_PROJECTS.map((project) => ({ ...project, orgId: DEMO_ORG_ID })));
  logger.info({ orgId: DEMO_ORG_ID, count: DEMO_PROJECTS.length }, "seeded demo projects");
}
