import { Principal, RateDecision } from '@em/core';

export interface GatewayContext {
  principal: Principal;
  principalToken: string;
  requestId: string;
  /** Rate-limit identity of the credential, and a key's own read limit. */
  rateSubject: string;
  readLimit?: number;
  /** The read the compiled path charged already, for a request it handed to Apollo (charged once). */
  precharged?: RateDecision;
}
