import { Principal } from '../../principal';

/** An organisation's API key, as the gateway signs it for the subgraphs. */
export const apiKeyPrincipal = (orgId: number, apiKeyId = 1): Principal => ({
  kind: 'api_key',
  orgId,
  apiKeyId,
  scopes: [],
  requestId: 'req-test',
});
