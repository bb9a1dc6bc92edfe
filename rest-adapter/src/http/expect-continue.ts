import { IncomingMessage, RequestListener, ServerResponse } from 'node:http';

/**
 * `Expect: 100-continue`: Node answers `100 Continue` at once unless the server listens for
 * `checkContinue`. A request without credentials gets no invitation to send its body: the handler
 * answers it 401 straight away. With credentials it continues (an upload is still authorised
 * before its body is read).
 */
export function continueOnlyWithCredentials(
  handler: RequestListener,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    if (req.headers['x-api-key'] || req.headers.authorization) res.writeContinue();
    handler(req, res);
  };
}
