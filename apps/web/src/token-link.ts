import { takeTokenFromFragment } from "./connection.js";
import { summariseToken } from "./token.js";

/**
 * Takes the token of a `#token=` link into this tab, asking first (window.confirm) when it would
 * replace the tab's token. Returns whether the tab's token changed.
 */
export function takeLinkedToken(): boolean {
  return takeTokenFromFragment(window.location, window.history, window.sessionStorage, (stored, offered) =>
    window.confirm(tokenSwitchQuestion(stored, offered)),
  );
}

/** The question put before a link's token replaces the tab's: which organisation each one names. */
export function tokenSwitchQuestion(stored: string, offered: string): string {
  return [
    `This link signs this tab in to ${organisationOf(offered)}.`,
    `The tab is signed in to ${organisationOf(stored)} now.`,
    "Switch only if you meant to. Replace the tab's token with the link's?",
  ].join("\n\n");
}

function organisationOf(token: string): string {
  const orgId = summariseToken(token)?.orgId;
  return orgId === undefined ? "no organisation the app can read" : `organisation ${orgId}`;
}
