import { Principal, RateDecision } from '@em/core';

export interface GatewayContext {
  principal: Principal;
  principalToken: string;
  requestId: string;
  /** Rate-limit identity of the caller (and of a browser key's visitors together), and a key's own read limit. */
  rateSubject: string;
  sharedRateSubject?: string;
  readLimit?: number;
  /** The authentication did not depend on the client address (Authenticated.anyAddress). */
  anyAddress?: { visitorPrefix?: string };
  /** The read the compiled path charged already, for a request it handed to Apollo (charged once). */
  precharged?: RateDecision;
}
