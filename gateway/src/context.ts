import { Principal } from '@em/core';

export interface GatewayContext {
  principal: Principal;
  principalToken: string;
  requestId: string;
}
