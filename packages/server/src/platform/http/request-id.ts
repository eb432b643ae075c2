import type { NextFunction, Request, Response } from 'express';
import { randomBase62 } from '../ids.js';

export const REQUEST_ID_HEADER = 'Service-Request-Id';

declare global {
  namespace Express {
    interface Request {
      requestId: string;
    }
  }
}

/** Gives `req` its id and puts it on the response, before anything can answer. */
export function assignRequestId(req: Request, res: Response): void {
  req.requestId = `req_${randomBase62(20)}`;
  res.setHeader(REQUEST_ID_HEADER, req.requestId);
}

/** Every response, errors and unknown routes included, carries `Service-Request-Id`. */
export function requestId() {
  return (req: Request, res: Response, next: NextFunction) => {
    assignRequestId(req, res);
    next();
  };
}
