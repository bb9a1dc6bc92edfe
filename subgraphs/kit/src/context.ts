import { Principal } from '@em/core';

/** What every resolver gets: the verified principal of the call and its request id. */
export interface SubgraphContext {
  principal: Principal;
  requestId: string;
}
