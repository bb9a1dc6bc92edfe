import type { NextFunction, Request, Response } from 'express';

/** How long a refused upload's unread body is still drained (so the client reads the answer) before the connection is cut. */
const LINGER_MS = 2000;

/**
 * A multipart request answered before its body was read (refused, or failed) leaves files unread
 * on the connection: the gateway ends its side once the answer is out, discards what still
 * arrives, and cuts the socket after LINGER_MS, rather than keep the connection for the next request.
 */
export function closeRefusedUploads(req: Request, res: Response, next: NextFunction): void {
  if (req.is('multipart/form-data')) {
    res.once('finish', () => {
      if (req.complete) return;
      req.unpipe();
      req.resume();
      req.socket.end();
      setTimeout(() => req.socket.destroy(), LINGER_MS).unref();
    });
  }
  next();
}
